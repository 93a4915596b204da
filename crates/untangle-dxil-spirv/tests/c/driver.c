/* A C program using dxil_spirv_c.h the way vkd3d-proton's libs/vkd3d-shader/dxil.c does:
 * per shader, open the thread allocator context, set the thread log callback, parse the
 * container, reflect (stage, entry points, library subobjects, work-graph node inputs),
 * create a converter, set the entry point (libraries: the first entry), add vkd3d-proton's
 * usual options, set every remapping callback, set the root constant and descriptor counts,
 * run, read the module and the getters, free.
 *
 * It builds against the archive's dxil-spirv or untangle's library alike: tests/c_api.rs
 * links it both ways and compares what they print and write.
 *
 *   driver [-o DIR] FILE...   one `reflect` and one `run` line per file; with -o, each module
 *                             as DIR/<file name>.spv
 *   driver --null-checks      calls every function taking a pointer with NULL; exit status 0
 *                             when each answers as the header says
 *
 * The stage-output callback behaves like vkd3d-proton's (a capture): a second query for the
 * same semantic fails and is counted as `duplicates` in the run line. */

#define DXIL_SPV_ENABLE_EXPERIMENTAL_WORKGRAPHS
#define DXIL_SPV_ENABLE_EXPERIMENTAL_MULTIVIEW
#include "dxil_spirv_c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned calls_srv, calls_uav, calls_cbv, calls_sampler, calls_vertex, calls_stream, calls_in, calls_out;
static unsigned duplicates;
static char seen_outputs[64][80];
static unsigned seen_count;
static unsigned log_lines;

static void log_cb(void *userdata, dxil_spv_log_level level, const char *msg)
{
	(void)userdata;
	log_lines++;
	fprintf(stderr, "log[%d]: %s", (int)level, msg);
}

/* Class `cls` of register space `space` lands in set 5 * space + cls, binding = register. The
 * SM 6.6 heaps (ResourceDescriptorHeap[], SamplerDescriptorHeap[]: register, space and range
 * all ~0u) are bindless heaps in set `cls`, as vkd3d-proton answers them. */
static void binding(dxil_spv_vulkan_binding *b, const dxil_spv_d3d_binding *d3d, unsigned cls)
{
	int heap = d3d->register_index == ~0u && d3d->register_space == ~0u && d3d->range_size == ~0u;
	b->set = heap ? cls : 5 * d3d->register_space + cls;
	b->binding = heap ? 0 : d3d->register_index;
	b->descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY;
	if (heap)
	{
		b->bindless.use_heap = DXIL_SPV_TRUE;
		b->bindless.heap_root_offset = 0;
		b->root_constant_index = ~0u;
	}
}

/* Classes: SRV 0, UAV 1 (counters 2), CBV 3, sampler 4. */
static dxil_spv_bool srv_cb(void *ud, const dxil_spv_d3d_binding *d3d, dxil_spv_srv_vulkan_binding *vk)
{
	(void)ud;
	calls_srv++;
	binding(&vk->buffer_binding, d3d, 0);
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool uav_cb(void *ud, const dxil_spv_uav_d3d_binding *d3d, dxil_spv_uav_vulkan_binding *vk)
{
	(void)ud;
	calls_uav++;
	binding(&vk->buffer_binding, &d3d->d3d_binding, 1);
	if (d3d->has_counter)
	{
		/* Counters as storage buffers (dxil-spirv's default, texel buffers, untangle refuses
		 * by name). */
		binding(&vk->counter_binding, &d3d->d3d_binding, 2);
		vk->counter_binding.descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO;
	}
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool cbv_cb(void *ud, const dxil_spv_d3d_binding *d3d, dxil_spv_cbv_vulkan_binding *vk)
{
	(void)ud;
	calls_cbv++;
	vk->push_constant = DXIL_SPV_FALSE;
	binding(&vk->vulkan.uniform_binding, d3d, 3);
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool sampler_cb(void *ud, const dxil_spv_d3d_binding *d3d, dxil_spv_vulkan_binding *vk)
{
	(void)ud;
	calls_sampler++;
	binding(vk, d3d, 4);
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool vertex_cb(void *ud, const dxil_spv_d3d_vertex_input *d3d, dxil_spv_vulkan_vertex_input *vk)
{
	(void)ud;
	calls_vertex++;
	vk->location = d3d->start_row;
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool stream_cb(void *ud, const dxil_spv_d3d_stream_output *d3d, dxil_spv_vulkan_stream_output *vk)
{
	(void)ud;
	(void)d3d;
	calls_stream++;
	vk->enable = DXIL_SPV_FALSE;
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool input_cb(void *ud, const dxil_spv_d3d_shader_stage_io *d3d, dxil_spv_vulkan_shader_stage_io *vk)
{
	(void)ud;
	(void)d3d;
	(void)vk;
	calls_in++;
	return DXIL_SPV_TRUE;
}

/* Like vkd3d-proton's output capture: each semantic once. */
static dxil_spv_bool output_cb(void *ud, const dxil_spv_d3d_shader_stage_io *d3d, dxil_spv_vulkan_shader_stage_io *vk)
{
	char key[80];
	unsigned i;
	(void)ud;
	(void)vk;
	calls_out++;
	snprintf(key, sizeof(key), "%s%u", d3d->semantic ? d3d->semantic : "(null)", d3d->semantic_index);
	for (i = 0; i < seen_count; i++)
	{
		if (strcmp(seen_outputs[i], key) == 0)
		{
			duplicates++;
			return DXIL_SPV_FALSE;
		}
	}
	if (seen_count < 64)
		strcpy(seen_outputs[seen_count++], key);
	return DXIL_SPV_TRUE;
}

static void add_options(dxil_spv_converter converter, dxil_spv_shader_stage stage)
{
	static const unsigned swizzles[8] = { 0xe4, 0xe4, 0xe4, 0xe4, 0xe4, 0xe4, 0xe4, 0xe4 };
	dxil_spv_option_shader_demote_to_helper demote = { { DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER }, DXIL_SPV_TRUE };
	dxil_spv_option_typed_uav_read_without_format typed = { { DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT }, DXIL_SPV_TRUE };
	dxil_spv_option_shader_i8_dot i8 = { { DXIL_SPV_OPTION_SHADER_I8_DOT }, DXIL_SPV_TRUE };
	dxil_spv_option_scalar_block_layout scalar = { { DXIL_SPV_OPTION_SCALAR_BLOCK_LAYOUT }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	dxil_spv_option_barycentric_khr bary = { { DXIL_SPV_OPTION_BARYCENTRIC_KHR }, DXIL_SPV_TRUE };
	dxil_spv_option_branch_control branch = { { DXIL_SPV_OPTION_BRANCH_CONTROL }, DXIL_SPV_TRUE, 0, 0, 0, 0 };
	dxil_spv_option_subgroup_properties sub = { { DXIL_SPV_OPTION_SUBGROUP_PROPERTIES }, 32, 32 };
	dxil_spv_option_driver_version driver = { { DXIL_SPV_OPTION_DRIVER_VERSION }, 4, 0x10000 };
	dxil_spv_option_compute_shader_derivatives deriv = { { DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES }, DXIL_SPV_FALSE, DXIL_SPV_TRUE };
	dxil_spv_option_shader_source_file source = { { DXIL_SPV_OPTION_SHADER_SOURCE_FILE }, "driver.hlsl" };
	dxil_spv_option_sample_grad_optimization_control grad = { { DXIL_SPV_OPTION_SAMPLE_GRAD_OPTIMIZATION_CONTROL }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	dxil_spv_option_precise_control precise = { { DXIL_SPV_OPTION_PRECISE_CONTROL }, DXIL_SPV_FALSE, DXIL_SPV_TRUE };
	dxil_spv_option_output_swizzle swizzle = { { DXIL_SPV_OPTION_OUTPUT_SWIZZLE }, swizzles, 8 };
	dxil_spv_option_dual_source_blending dual = { { DXIL_SPV_OPTION_DUAL_SOURCE_BLENDING }, DXIL_SPV_FALSE };
	dxil_spv_option_shader_quirk quirk = { { DXIL_SPV_OPTION_SHADER_QUIRK }, DXIL_SPV_SHADER_QUIRK_NONE };
	dxil_spv_option_view_instancing view = { { DXIL_SPV_OPTION_VIEW_INSTANCING }, DXIL_SPV_FALSE, DXIL_SPV_FALSE, 0, 0 };
	dxil_spv_option_base unknown = { (dxil_spv_option)1000 };
	dxil_spv_option_base invalid = { DXIL_SPV_OPTION_INVALID };
	const dxil_spv_option_base *all[] = {
		&demote.base, &typed.base, &i8.base, &scalar.base, &bary.base, &branch.base, &sub.base, &driver.base,
		&deriv.base, &source.base, &grad.base, &precise.base, &quirk.base, &view.base,
	};
	unsigned i, failed = 0;

	for (i = 0; i < sizeof(all) / sizeof(*all); i++)
		if (dxil_spv_converter_add_option(converter, all[i]) != DXIL_SPV_SUCCESS)
			failed++;
	if (stage == DXIL_SPV_STAGE_PIXEL)
	{
		failed += dxil_spv_converter_add_option(converter, &swizzle.base) != DXIL_SPV_SUCCESS;
		failed += dxil_spv_converter_add_option(converter, &dual.base) != DXIL_SPV_SUCCESS;
	}
	if (failed)
		printf("  options: %u failed\n", failed);
	if (dxil_spv_converter_add_option(converter, &unknown) != DXIL_SPV_ERROR_UNSUPPORTED_FEATURE)
		printf("  options: unknown type accepted\n");
	if (dxil_spv_converter_add_option(converter, &invalid) != DXIL_SPV_ERROR_UNSUPPORTED_FEATURE)
		printf("  options: INVALID accepted\n");
	if (!dxil_spv_converter_supports_option(DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_QUAD) ||
	    dxil_spv_converter_supports_option((dxil_spv_option)1000))
		printf("  options: supports_option wrong\n");
}

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data;
	long len;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(len > 0 ? (size_t)len : 1);
	if (data && fread(data, 1, (size_t)len, f) != (size_t)len)
	{
		free(data);
		data = NULL;
	}
	fclose(f);
	*size = (size_t)len;
	return data;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void convert(const char *path, const char *outdir)
{
	size_t size;
	unsigned char *data = read_file(path, &size);
	dxil_spv_parsed_blob blob = NULL;
	dxil_spv_converter converter = NULL;
	dxil_spv_result r;
	dxil_spv_shader_stage stage;
	unsigned count = 0, i, subobjects;
	const char *first_entry = NULL;
	const char *name = base_name(path);

	if (!data)
	{
		printf("%s read-failed\n", name);
		return;
	}
	calls_srv = calls_uav = calls_cbv = calls_sampler = calls_vertex = calls_stream = calls_in = calls_out = 0;
	duplicates = seen_count = 0;

	dxil_spv_begin_thread_allocator_context();
	dxil_spv_set_thread_log_callback(log_cb, NULL);
	r = dxil_spv_parse_dxil_blob(data, size, &blob);
	if (r != DXIL_SPV_SUCCESS)
	{
		printf("%s reflect parse=%d\n", name, (int)r);
		goto end;
	}

	stage = dxil_spv_parsed_blob_get_shader_stage(blob);
	dxil_spv_parsed_blob_get_num_entry_points(blob, &count);
	printf("%s reflect stage=%d entries=%u", name, (int)stage, count);
	for (i = 0; i < count; i++)
	{
		const char *mangled = NULL, *demangled = NULL;
		unsigned index = ~0u;
		dxil_spv_node_input_data node;
		dxil_spv_result nr;
		dxil_spv_parsed_blob_get_entry_point_name(blob, i, &mangled);
		dxil_spv_parsed_blob_get_entry_point_demangled_name(blob, i, &demangled);
		dxil_spv_parsed_blob_get_entry_index_by_name(blob, demangled, &index);
		printf(" [%s|%s stage=%d index=%u", mangled, demangled, (int)dxil_spv_parsed_blob_get_shader_stage_for_entry(blob, demangled), index);
		memset(&node, 0, sizeof(node));
		nr = dxil_spv_parsed_blob_get_entry_point_node_input(blob, i, &node);
		if (nr == DXIL_SPV_SUCCESS && node.launch_type != DXIL_SPV_NODE_LAUNCH_TYPE_INVALID)
		{
			unsigned outputs = 0, o;
			printf(" node=%s/%u launch=%d stride=%u grid=off%u/bits%u/n%u bcast=%u,%u,%u upper=%d rec=%u coal=%u"
			       " share=%s/%u lrs=%d specs=%u,%u,%u,%u,%u,%u,%u,%u,%u,%u rw=%d entry=%d",
			       node.node_id ? node.node_id : "", node.node_array_index, (int)node.launch_type,
			       node.payload_stride, node.dispatch_grid_offset, node.dispatch_grid_type_bits,
			       node.dispatch_grid_components,
			       node.broadcast_grid[0], node.broadcast_grid[1], node.broadcast_grid[2],
			       (int)node.dispatch_grid_is_upper_bound, node.recursion_factor, node.coalesce_factor,
			       node.node_share_input_id ? node.node_share_input_id : "", node.node_share_input_array_index,
			       (int)node.local_root_arguments_table_index, node.thread_group_size_spec_id[0],
			       node.thread_group_size_spec_id[1], node.thread_group_size_spec_id[2],
			       node.max_broadcast_grid_spec_id[0], node.max_broadcast_grid_spec_id[1],
			       node.max_broadcast_grid_spec_id[2], node.is_indirect_bda_stride_program_entry_spec_id,
			       node.is_entry_point_spec_id, node.dispatch_grid_is_upper_bound_spec_id,
			       node.is_static_broadcast_node_spec_id, (int)node.node_track_rw_input_sharing,
			       (int)node.is_program_entry);
			dxil_spv_parsed_blob_get_entry_point_num_node_outputs(blob, i, &outputs);
			for (o = 0; o < outputs; o++)
			{
				dxil_spv_node_output_data out;
				memset(&out, 0, sizeof(out));
				if (dxil_spv_parsed_blob_get_entry_point_node_output(blob, i, o, &out) == DXIL_SPV_SUCCESS)
					printf(" out=%s/%u[%u]spec%u,max%u,sparse%d", out.node_id ? out.node_id : "", out.node_array_index,
					       out.node_array_size, out.node_index_spec_constant_id, out.max_records, (int)out.sparse_array);
			}
			if (dxil_spv_parsed_blob_get_entry_point_node_output(blob, i, outputs, &(dxil_spv_node_output_data){0}) !=
			    DXIL_SPV_ERROR_INVALID_ARGUMENT)
				printf(" out-of-range-output-accepted");
		}
		printf("]");
		if (i == 0)
			first_entry = demangled;
	}
	if (dxil_spv_parsed_blob_get_entry_point_name(blob, count, &first_entry) != DXIL_SPV_ERROR_INVALID_ARGUMENT)
		printf(" out-of-range-entry-accepted");
	subobjects = dxil_spv_parsed_blob_get_num_rdat_subobjects(blob);
	printf(" subobjects=%u", subobjects);
	for (i = 0; i < subobjects; i++)
	{
		dxil_spv_rdat_subobject sub;
		memset(&sub, 0, sizeof(sub));
		dxil_spv_parsed_blob_get_rdat_subobject(blob, i, &sub);
		/* Payloads point into the caller's buffer (layers read them after freeing the blob). */
		printf(" (%d %s exports=%u args=%u,%u payload=%zu%s)", (int)sub.kind, sub.subobject_name ? sub.subobject_name : "",
		       sub.num_exports, sub.args[0], sub.args[1], sub.payload_size,
		       sub.payload_size == 0 ? "" :
		       ((const unsigned char *)sub.payload >= data &&
		        (const unsigned char *)sub.payload + sub.payload_size <= data + size) ? " in-input" : " copied");
	}
	printf("\n");
	if (count > 0)
		dxil_spv_parsed_blob_get_entry_point_demangled_name(blob, 0, &first_entry);

	r = dxil_spv_create_converter(blob, &converter);
	if (r != DXIL_SPV_SUCCESS)
	{
		printf("%s run create=%d\n", name, (int)r);
		goto end;
	}
	if (count > 1 || stage == DXIL_SPV_STAGE_UNKNOWN || stage >= DXIL_SPV_STAGE_INTERSECTION)
		dxil_spv_converter_set_entry_point(converter, first_entry);
	add_options(converter, stage);
	dxil_spv_converter_set_srv_remapper(converter, srv_cb, NULL);
	dxil_spv_converter_set_uav_remapper(converter, uav_cb, NULL);
	dxil_spv_converter_set_cbv_remapper(converter, cbv_cb, NULL);
	dxil_spv_converter_set_sampler_remapper(converter, sampler_cb, NULL);
	dxil_spv_converter_set_vertex_input_remapper(converter, vertex_cb, NULL);
	dxil_spv_converter_set_stream_output_remapper(converter, stream_cb, NULL);
	dxil_spv_converter_set_stage_input_remapper(converter, input_cb, NULL);
	dxil_spv_converter_set_stage_output_remapper(converter, output_cb, NULL);
	dxil_spv_converter_set_root_constant_word_count(converter, 16);
	dxil_spv_converter_set_root_descriptor_count(converter, 2);
	{
		/* What vkd3d-proton adds for ray tracing (a local root signature) and for every stage
		 * (meta descriptors, root parameter mappings, debug info); the codes are printed. */
		static const char debug_info[] = "driver";
		int codes[6];
		codes[0] = dxil_spv_converter_set_meta_descriptor(converter, DXIL_SPV_META_DESCRIPTOR_RAW_DESCRIPTOR_HEAP_VIEW,
		                                                  DXIL_SPV_META_DESCRIPTOR_KIND_READONLY_SSBO, 7, 0);
		dxil_spv_converter_add_root_parameter_mapping(converter, 0, 0);
		dxil_spv_converter_add_root_descriptor_mapping(converter, 1, 6, 0);
		dxil_spv_converter_add_non_semantic_debug_info(converter, "driver", debug_info, sizeof(debug_info));
		codes[1] = codes[2] = codes[3] = codes[4] = codes[5] = 0;
		if (stage >= DXIL_SPV_STAGE_INTERSECTION && stage <= DXIL_SPV_STAGE_CALLABLE)
		{
			dxil_spv_converter_add_local_root_constants(converter, 15, 0, 4);
			dxil_spv_converter_add_local_root_descriptor(converter, DXIL_SPV_RESOURCE_CLASS_SRV, 15, 1);
			codes[1] = dxil_spv_converter_end_local_root_descriptor_table(converter);
			codes[2] = dxil_spv_converter_begin_local_root_descriptor_table(converter);
			codes[3] = dxil_spv_converter_begin_local_root_descriptor_table(converter);
			dxil_spv_converter_add_local_root_descriptor_table(converter, DXIL_SPV_RESOURCE_CLASS_SRV, 15, 2, 1, 0);
			dxil_spv_converter_add_local_root_descriptor_table(converter, DXIL_SPV_RESOURCE_CLASS_UAV, 15, 3, 1, 1);
			codes[4] = dxil_spv_converter_end_local_root_descriptor_table(converter);
			codes[5] = dxil_spv_converter_end_local_root_descriptor_table(converter);
		}
		printf("%s setup meta=%d local=%d,%d,%d,%d,%d\n", name, codes[0], codes[1], codes[2], codes[3], codes[4], codes[5]);
	}
	if (stage == DXIL_SPV_STAGE_DOMAIN)
		dxil_spv_converter_set_patch_location_offset(converter, 0);

	r = dxil_spv_converter_run(converter);
	printf("%s run result=%d", name, (int)r);
	if (r == DXIL_SPV_SUCCESS)
	{
		dxil_spv_compiled_spirv compiled;
		const char *entry = NULL;
		unsigned x = 0, y = 0, z = 0, wmin = 0, wmax = 0, wpref = 0, hmin = 0, hmax = 0, pvc = 0, plo = 0;
		dxil_spv_bool multiview = DXIL_SPV_FALSE;
		if (dxil_spv_converter_get_compiled_spirv(converter, &compiled) == DXIL_SPV_SUCCESS)
		{
			printf(" spirv=%zu", compiled.size);
			if (outdir)
			{
				char out[4096];
				FILE *f;
				snprintf(out, sizeof(out), "%s/%s.spv", outdir, name);
				f = fopen(out, "wb");
				if (f)
				{
					fwrite(compiled.data, 1, compiled.size, f);
					fclose(f);
				}
			}
		}
		dxil_spv_converter_get_compiled_entry_point(converter, &entry);
		dxil_spv_converter_get_compute_workgroup_dimensions(converter, &x, &y, &z);
		dxil_spv_converter_get_compute_wave_size_range(converter, &wmin, &wmax, &wpref);
		dxil_spv_converter_get_compute_heuristic_min_wave_size(converter, &hmin);
		dxil_spv_converter_get_compute_heuristic_max_wave_size(converter, &hmax);
		dxil_spv_converter_get_patch_vertex_count(converter, &pvc);
		dxil_spv_converter_get_patch_location_offset(converter, &plo);
		dxil_spv_converter_is_multiview_compatible(converter, &multiview);
		printf(" entry=%s wg=%u,%u,%u wave=%u,%u,%u heuristic=%u,%u patch=%u,%u subgroup=%d multiview=%d", entry ? entry : "",
		       x, y, z, wmin, wmax, wpref, hmin, hmax, pvc, plo, (int)dxil_spv_converter_uses_subgroup_size(converter),
		       (int)multiview);
	}
	printf(" calls=%u,%u,%u,%u,%u,%u,%u,%u duplicates=%u\n", calls_srv, calls_uav, calls_cbv, calls_sampler, calls_vertex,
	       calls_stream, calls_in, calls_out, duplicates);

end:
	dxil_spv_converter_free(converter);
	dxil_spv_parsed_blob_free(blob);
	dxil_spv_end_thread_allocator_context();
	free(data);
}

#define EXPECT(expr, want)                                                                   \
	do                                                                                       \
	{                                                                                        \
		long got_ = (long)(expr);                                                            \
		if (got_ != (long)(want))                                                            \
		{                                                                                    \
			printf("FAIL %s: %ld, want %ld\n", #expr, got_, (long)(want));                     \
			failures++;                                                                      \
		}                                                                                    \
	} while (0)

static int null_checks(void)
{
	int failures = 0;
	dxil_spv_parsed_blob blob = NULL;
	dxil_spv_converter converter = NULL;
	unsigned u = 0;
	const char *s = NULL;
	const void *p = NULL;
	size_t n = 0;
	dxil_spv_compiled_spirv compiled;
	dxil_spv_bool b;
	unsigned char junk[64] = { 'D', 'X', 'B', 'C' };

	EXPECT(dxil_spv_parse_dxil_blob(NULL, 4, &blob), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parse_dxil_blob(junk, sizeof(junk), NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parse_dxil(NULL, 4, &blob), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parse_reflection_dxil_blob(NULL, 4, &blob), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parse_dxil_blob(junk, sizeof(junk), &blob), DXIL_SPV_ERROR_PARSER);
	EXPECT(dxil_spv_parsed_blob_get_disassembled_ir(NULL, &s), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_raw_ir(NULL, &p, &n), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_shader_stage(NULL), DXIL_SPV_STAGE_UNKNOWN);
	EXPECT(dxil_spv_parsed_blob_get_shader_stage_for_entry(NULL, "main"), DXIL_SPV_STAGE_UNKNOWN);
	EXPECT(dxil_spv_parsed_blob_get_entry_index_by_name(NULL, "main", &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_num_entry_points(NULL, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_entry_point_name(NULL, 0, &s), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_entry_point_demangled_name(NULL, 0, &s), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_entry_point_node_input(NULL, 0, NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_entry_point_num_node_outputs(NULL, 0, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_entry_point_node_output(NULL, 0, 0, NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_scan_resources(NULL, NULL, NULL, NULL, NULL, NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_parsed_blob_get_num_rdat_subobjects(NULL), 0);
	dxil_spv_parsed_blob_get_rdat_subobject(NULL, 0, NULL);
	dxil_spv_parsed_blob_dump_llvm_ir(NULL);
	dxil_spv_parsed_blob_free(NULL);
	EXPECT(dxil_spv_create_converter(NULL, &converter), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_create_converter_with_reflection(NULL, NULL, &converter), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	dxil_spv_converter_free(NULL);
	dxil_spv_converter_set_entry_point(NULL, "main");
	dxil_spv_converter_set_stage_input_remapper(NULL, input_cb, NULL);
	dxil_spv_converter_set_stage_output_remapper(NULL, output_cb, NULL);
	dxil_spv_converter_set_vertex_input_remapper(NULL, vertex_cb, NULL);
	dxil_spv_converter_set_stream_output_remapper(NULL, stream_cb, NULL);
	dxil_spv_converter_set_srv_remapper(NULL, srv_cb, NULL);
	dxil_spv_converter_set_sampler_remapper(NULL, sampler_cb, NULL);
	dxil_spv_converter_set_uav_remapper(NULL, uav_cb, NULL);
	dxil_spv_converter_set_cbv_remapper(NULL, cbv_cb, NULL);
	dxil_spv_converter_set_root_constant_word_count(NULL, 1);
	dxil_spv_converter_set_root_descriptor_count(NULL, 1);
	dxil_spv_converter_add_local_root_constants(NULL, 0, 0, 1);
	dxil_spv_converter_add_local_root_descriptor(NULL, DXIL_SPV_RESOURCE_CLASS_SRV, 0, 0);
	dxil_spv_converter_add_local_root_descriptor_table(NULL, DXIL_SPV_RESOURCE_CLASS_SRV, 0, 0, 1, 0);
	EXPECT(dxil_spv_converter_begin_local_root_descriptor_table(NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_end_local_root_descriptor_table(NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	dxil_spv_converter_add_root_parameter_mapping(NULL, 0, 0);
	dxil_spv_converter_add_root_descriptor_mapping(NULL, 0, 0, 0);
	dxil_spv_converter_add_non_semantic_debug_info(NULL, "tag", "x", 1);
	dxil_spv_converter_set_patch_location_offset(NULL, 0);
	EXPECT(dxil_spv_converter_run(NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_compiled_spirv(NULL, &compiled), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_compiled_entry_point(NULL, &s), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_add_option(NULL, NULL), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_uses_subgroup_size(NULL), 0);
	EXPECT(dxil_spv_converter_get_compute_workgroup_dimensions(NULL, &u, &u, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_compute_required_wave_size(NULL, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_compute_wave_size_range(NULL, &u, &u, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_compute_heuristic_max_wave_size(NULL, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_compute_heuristic_min_wave_size(NULL, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_patch_vertex_count(NULL, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_get_patch_location_offset(NULL, &u), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	EXPECT(dxil_spv_converter_uses_shader_feature(NULL, DXIL_SPV_SHADER_FEATURE_NATIVE_16BIT_OPERATIONS), 0);
	EXPECT(dxil_spv_converter_is_multiview_compatible(NULL, &b), DXIL_SPV_ERROR_INVALID_ARGUMENT);
	if (dxil_spv_converter_get_analysis_warnings(NULL) != NULL)
	{
		printf("FAIL analysis warnings of NULL\n");
		failures++;
	}
	EXPECT(dxil_spv_converter_set_meta_descriptor(NULL, DXIL_SPV_META_DESCRIPTOR_RESOURCE_DESCRIPTOR_HEAP_SIZE,
	                                              DXIL_SPV_META_DESCRIPTOR_KIND_PUSH_CONSTANT, 0, 0),
	       DXIL_SPV_ERROR_INVALID_ARGUMENT);
	dxil_spv_get_version(NULL, NULL, NULL);
	{
		unsigned major = 0, minor = 0, patch = 0;
		dxil_spv_get_version(&major, &minor, &patch);
		if (major != DXIL_SPV_API_VERSION_MAJOR || minor != DXIL_SPV_API_VERSION_MINOR)
		{
			printf("FAIL version %u.%u.%u\n", major, minor, patch);
			failures++;
		}
	}
	dxil_spv_begin_thread_allocator_context();
	dxil_spv_reset_thread_allocator_context();
	dxil_spv_end_thread_allocator_context();
	dxil_spv_set_thread_log_callback(NULL, NULL);
	printf("null checks: %d failures\n", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *outdir = NULL;
	int i = 1;
	if (argc > 1 && strcmp(argv[1], "--null-checks") == 0)
		return null_checks();
	if (argc > 2 && strcmp(argv[1], "-o") == 0)
	{
		outdir = argv[2];
		i = 3;
	}
	for (; i < argc; i++)
		convert(argv[i], outdir);
	fprintf(stderr, "log lines: %u\n", log_lines);
	return 0;
}
