/*
 * A C11 program that uses untangle through its header only (tests/c_program.rs builds and
 * runs it, and compares what it writes with the Rust API's output).
 *
 *   translate [--threads N] OUTDIR SHADER...
 *       for each shader: parse, print its reflection, build two root signatures from it,
 *       translate it under every option set below and write OUTDIR/NAME.MODE.spv (or
 *       OUTDIR/NAME.MODE.err: "STATUS\nmessage"); with a root signature also
 *       NAME.MODE.layout.json (the layout report) and NAME.MODE.args.txt (the root
 *       arguments, one line each). Then N threads (default 4) translate the shader under
 *       every option set again, at once, sharing the shader and the options objects, and
 *       must get the same words, layout and status; the last line says how many matched.
 *   translate --errors SHADER
 *       exercise failures; print "case: STATUS[: message]" lines
 *
 * Root signatures (written as NAME.tables.txt, NAME.rootargs.txt and NAME.rootargs.rts0):
 *   tables    every declared range in descriptor tables (one table of the bounded
 *             CBV/SRV/UAV ranges, one of the bounded samplers, one per unbounded range);
 *   rootargs  root constants (24 values, at an unused register), root CBVs for single
 *             constant buffers, root SRVs/UAVs for single raw or structured buffers
 *             without counter, static samplers for single samplers, tables for the rest;
 *             as an HLSL string and as RTS0 bytes this program encodes itself.
 * Option sets (modes):
 *   default       options = NULL
 *   heap          tables string, heap model
 *   direct        tables string, direct model
 *   rootargs      rootargs string, heap model, push-constant budget 128 (the default)
 *   rts0          rootargs RTS0 bytes, heap model, budget 128
 *   spill         rootargs RTS0 bytes, heap model, budget 0 (every root argument spills)
 *   spill_direct  rootargs string, direct model, root descriptors as descriptors, budget 16
 *   remap         resource and stage-I/O remapping callbacks (rules below)
 *   xfb           vertex shaders: stream output of every output row to slot 0, then a gap
 */
#include "untangle.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int fatal_count = 0;

static void fatal(const char *what) {
    fprintf(stderr, "FATAL: %s\n", what);
    atomic_fetch_add(&fatal_count, 1);
}

/* Reads a whole file; NULL on failure. */
static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t put = fwrite(data, 1, len, f);
    return fclose(f) == 0 && put == len;
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *stage_name(untangle_stage s) {
    switch (s) {
    case UNTANGLE_STAGE_PIXEL: return "pixel";
    case UNTANGLE_STAGE_VERTEX: return "vertex";
    case UNTANGLE_STAGE_GEOMETRY: return "geometry";
    case UNTANGLE_STAGE_HULL: return "hull";
    case UNTANGLE_STAGE_DOMAIN: return "domain";
    case UNTANGLE_STAGE_COMPUTE: return "compute";
    case UNTANGLE_STAGE_LIBRARY: return "library";
    case UNTANGLE_STAGE_MESH: return "mesh";
    case UNTANGLE_STAGE_AMPLIFICATION: return "amplification";
    default: return "other";
    }
}

static char register_letter(untangle_resource_class c) {
    switch (c) {
    case UNTANGLE_RESOURCE_CLASS_SRV: return 't';
    case UNTANGLE_RESOURCE_CLASS_UAV: return 'u';
    case UNTANGLE_RESOURCE_CLASS_CBV: return 'b';
    default: return 's';
    }
}

static const char *class_keyword(untangle_resource_class c) {
    switch (c) {
    case UNTANGLE_RESOURCE_CLASS_SRV: return "SRV";
    case UNTANGLE_RESOURCE_CLASS_UAV: return "UAV";
    case UNTANGLE_RESOURCE_CLASS_CBV: return "CBV";
    default: return "Sampler";
    }
}

static const char *argument_kind_name(untangle_root_argument_kind k) {
    switch (k) {
    case UNTANGLE_ROOT_ARGUMENT_TABLE_OFFSET: return "table_offset";
    case UNTANGLE_ROOT_ARGUMENT_DESCRIPTOR_ADDRESS: return "descriptor_address";
    case UNTANGLE_ROOT_ARGUMENT_CONSTANTS: return "constants";
    default: return "?";
    }
}

/* OUTDIR/NAME.MODE.EXT */
static void out_path(char *buf, size_t size, const char *dir, const char *name, const char *mode, const char *ext) {
    snprintf(buf, size, "%s/%s.%s.%s", dir, name, mode, ext);
}

/* Records a failed step as NAME.MODE.err ("STATUS\nmessage") and frees the error. */
static void record_error(const char *dir, const char *name, const char *mode, untangle_status st,
                         untangle_error *err) {
    char path[4096];
    out_path(path, sizeof path, dir, name, mode, "err");
    const char *msg = err ? untangle_error_message(err) : "";
    if (err && untangle_error_status(err) != st) fatal("the error object's status differs from the call's");
    char text[8192];
    int n = snprintf(text, sizeof text, "%s\n%s\n", untangle_status_name(st), msg ? msg : "");
    if (n < 0 || !write_file(path, text, strlen(text))) fatal("cannot write an .err file");
    printf("  %s: %s: %s\n", mode, untangle_status_name(st), msg ? msg : "");
    untangle_error_free(err);
}

/* --- growing strings and byte buffers --- */

typedef struct {
    char *text;
    size_t len, cap;
} str;

static void append(str *s, const char *piece) {
    size_t n = strlen(piece);
    if (s->len + n + 1 > s->cap) {
        size_t cap = (s->len + n + 1) * 2;
        char *grown = realloc(s->text, cap);
        if (!grown) {
            fatal("out of memory");
            return;
        }
        s->text = grown;
        s->cap = cap;
    }
    memcpy(s->text + s->len, piece, n + 1);
    s->len += n;
}

typedef struct {
    unsigned char *bytes;
    size_t len, cap;
} bytes_out;

/* Appends a little-endian 32-bit value. */
static void put_u32(bytes_out *b, uint32_t v) {
    if (b->len + 4 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        unsigned char *grown = realloc(b->bytes, cap);
        if (!grown) {
            fatal("out of memory");
            return;
        }
        b->bytes = grown;
        b->cap = cap;
    }
    for (int i = 0; i < 4; i++) b->bytes[b->len++] = (unsigned char)(v >> (8 * i));
}

/* Overwrites the value at byte `at`. */
static void patch_u32(bytes_out *b, size_t at, uint32_t v) {
    if (at + 4 > b->len) return;
    for (int i = 0; i < 4; i++) b->bytes[at + i] = (unsigned char)(v >> (8 * i));
}

static void put_f32(bytes_out *b, float f) {
    uint32_t v;
    memcpy(&v, &f, sizeof v);
    put_u32(b, v);
}

/* --- root signatures built from reflection --- */

enum { PARAM_TABLE = 0, PARAM_CONSTANTS = 1, PARAM_CBV = 2, PARAM_SRV = 3, PARAM_UAV = 4 };

typedef struct {
    untangle_resource_class resource_class;
    uint32_t count; /* UNTANGLE_UNBOUNDED for unbounded */
    uint32_t base_register, space;
} rs_range;

typedef struct {
    int type;                    /* PARAM_* */
    uint32_t shader_register, space, num_values; /* constants and root descriptors */
    size_t first_range, range_count;             /* tables */
} rs_param;

typedef struct {
    uint32_t flags;
    rs_param *params;
    size_t param_count;
    rs_range *ranges;
    size_t range_count;
    uint32_t (*samplers)[2]; /* register, space */
    size_t sampler_count;
} root_signature;

static void rs_free(root_signature *rs) {
    free(rs->params);
    free(rs->ranges);
    free(rs->samplers);
}

/* Whether a resource becomes a root argument or static sampler in the rootargs signature. */
static int as_root_argument(const untangle_resource *r) {
    if (r->count != 1) return 0;
    switch (r->resource_class) {
    case UNTANGLE_RESOURCE_CLASS_CBV: return 1;
    case UNTANGLE_RESOURCE_CLASS_SAMPLER: return 1;
    default:
        return !r->has_counter &&
               (r->kind == UNTANGLE_RESOURCE_KIND_RAW_BUFFER || r->kind == UNTANGLE_RESOURCE_KIND_STRUCTURED_BUFFER);
    }
}

/* Builds the `tables` (root_arguments = 0) or `rootargs` (1) signature of a shader. Heap
 * indexing is allowed (SM 6.6 shaders index the heaps directly). */
static root_signature build_root_signature(const untangle_shader *shader, int root_arguments) {
    root_signature rs = {0};
    rs.flags = 0x400 | 0x800; /* CBV_SRV_UAV_ and SAMPLER_HEAP_DIRECTLY_INDEXED */
    size_t n = 0;
    untangle_shader_resource_count(shader, &n);
    rs.params = calloc(2 * n + 3, sizeof *rs.params);
    rs.ranges = calloc(n + 1, sizeof *rs.ranges);
    rs.samplers = calloc(n + 1, sizeof *rs.samplers);
    if (!rs.params || !rs.ranges || !rs.samplers) {
        fatal("out of memory");
        rs_free(&rs);
        root_signature none = {0};
        return none;
    }
    if (root_arguments) {
        rs_param c = {PARAM_CONSTANTS, 0, 77, 24, 0, 0};
        rs.params[rs.param_count++] = c;
        for (size_t i = 0; i < n; i++) {
            untangle_resource r;
            if (untangle_shader_resource(shader, i, &r) != UNTANGLE_OK) fatal("resource");
            if (!as_root_argument(&r)) continue;
            if (r.resource_class == UNTANGLE_RESOURCE_CLASS_SAMPLER) {
                rs.samplers[rs.sampler_count][0] = r.base_register;
                rs.samplers[rs.sampler_count][1] = r.space;
                rs.sampler_count++;
                continue;
            }
            int type = r.resource_class == UNTANGLE_RESOURCE_CLASS_CBV   ? PARAM_CBV
                       : r.resource_class == UNTANGLE_RESOURCE_CLASS_SRV ? PARAM_SRV
                                                                         : PARAM_UAV;
            rs_param p = {type, r.base_register, r.space, 0, 0, 0};
            rs.params[rs.param_count++] = p;
        }
    }
    for (int samplers = 0; samplers <= 1; samplers++) {
        for (int unbounded = 0; unbounded <= 1; unbounded++) {
            rs_param table = {PARAM_TABLE, 0, 0, 0, rs.range_count, 0};
            for (size_t i = 0; i < n; i++) {
                untangle_resource r;
                if (untangle_shader_resource(shader, i, &r) != UNTANGLE_OK) fatal("resource");
                if ((r.resource_class == UNTANGLE_RESOURCE_CLASS_SAMPLER) != samplers) continue;
                if ((r.count == UNTANGLE_UNBOUNDED) != unbounded) continue;
                if (root_arguments && as_root_argument(&r)) continue;
                rs_range range = {r.resource_class, r.count, r.base_register, r.space};
                rs.ranges[rs.range_count++] = range;
                table.range_count++;
                /* Nothing may follow an unbounded range in a table without an explicit offset. */
                if (unbounded) {
                    rs.params[rs.param_count++] = table;
                    table.first_range = rs.range_count;
                    table.range_count = 0;
                }
            }
            if (table.range_count) rs.params[rs.param_count++] = table;
        }
    }
    return rs;
}

/* The HLSL root-signature string of `rs`. */
static char *root_signature_string(const root_signature *rs) {
    str s = {0};
    char piece[256];
    append(&s, "RootFlags(CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | SAMPLER_HEAP_DIRECTLY_INDEXED)");
    for (size_t p = 0; p < rs->param_count; p++) {
        const rs_param *param = &rs->params[p];
        switch (param->type) {
        case PARAM_CONSTANTS:
            snprintf(piece, sizeof piece, ", RootConstants(num32BitConstants = %u, b%u, space = %u)",
                     param->num_values, param->shader_register, param->space);
            append(&s, piece);
            break;
        case PARAM_CBV:
        case PARAM_SRV:
        case PARAM_UAV: {
            untangle_resource_class c = param->type == PARAM_CBV   ? UNTANGLE_RESOURCE_CLASS_CBV
                                        : param->type == PARAM_SRV ? UNTANGLE_RESOURCE_CLASS_SRV
                                                                   : UNTANGLE_RESOURCE_CLASS_UAV;
            snprintf(piece, sizeof piece, ", %s(%c%u, space = %u)", class_keyword(c), register_letter(c),
                     param->shader_register, param->space);
            append(&s, piece);
            break;
        }
        default:
            append(&s, ", DescriptorTable(");
            for (size_t i = 0; i < param->range_count; i++) {
                const rs_range *r = &rs->ranges[param->first_range + i];
                char count[32];
                if (r->count == UNTANGLE_UNBOUNDED)
                    snprintf(count, sizeof count, "unbounded");
                else
                    snprintf(count, sizeof count, "%u", r->count);
                snprintf(piece, sizeof piece, "%s%s(%c%u, space = %u, numDescriptors = %s)", i ? ", " : "",
                         class_keyword(r->resource_class), register_letter(r->resource_class), r->base_register,
                         r->space, count);
                append(&s, piece);
            }
            append(&s, ")");
        }
    }
    for (size_t i = 0; i < rs->sampler_count; i++) {
        snprintf(piece, sizeof piece, ", StaticSampler(s%u, space = %u)", rs->samplers[i][0], rs->samplers[i][1]);
        append(&s, piece);
    }
    return s.text;
}

/* `rs` as an RTS0 part, version 1.1 (D3D12_VERSIONED_ROOT_SIGNATURE_DESC serialized:
 * header, parameter array, each parameter's payload, static samplers; offsets from the
 * part's start), with the string parser's defaults: no range or descriptor flags, ranges
 * appended, visibility ALL, DXC's static-sampler defaults. */
static bytes_out root_signature_rts0(const root_signature *rs) {
    bytes_out b = {0};
    put_u32(&b, 2); /* D3D_ROOT_SIGNATURE_VERSION_1_1 */
    put_u32(&b, (uint32_t)rs->param_count);
    put_u32(&b, 24); /* parameters right after the header */
    put_u32(&b, (uint32_t)rs->sampler_count);
    size_t samplers_at = b.len;
    put_u32(&b, 0); /* patched below */
    put_u32(&b, rs->flags);
    size_t params_at = b.len;
    for (size_t p = 0; p < rs->param_count; p++) {
        put_u32(&b, (uint32_t)rs->params[p].type);
        put_u32(&b, 0); /* D3D12_SHADER_VISIBILITY_ALL */
        put_u32(&b, 0); /* payload offset, patched below */
    }
    for (size_t p = 0; p < rs->param_count; p++) {
        const rs_param *param = &rs->params[p];
        patch_u32(&b, params_at + 12 * p + 8, (uint32_t)b.len);
        switch (param->type) {
        case PARAM_CONSTANTS:
            put_u32(&b, param->shader_register);
            put_u32(&b, param->space);
            put_u32(&b, param->num_values);
            break;
        case PARAM_CBV:
        case PARAM_SRV:
        case PARAM_UAV:
            put_u32(&b, param->shader_register);
            put_u32(&b, param->space);
            put_u32(&b, 0); /* flags */
            break;
        default:
            put_u32(&b, (uint32_t)param->range_count);
            put_u32(&b, (uint32_t)b.len + 4); /* the ranges follow */
            for (size_t i = 0; i < param->range_count; i++) {
                const rs_range *r = &rs->ranges[param->first_range + i];
                put_u32(&b, r->resource_class); /* D3D12_DESCRIPTOR_RANGE_TYPE: SRV 0, UAV 1, CBV 2, sampler 3 */
                put_u32(&b, r->count);
                put_u32(&b, r->base_register);
                put_u32(&b, r->space);
                put_u32(&b, 0);           /* flags */
                put_u32(&b, 0xFFFFFFFFu); /* D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND */
            }
        }
    }
    patch_u32(&b, samplers_at, (uint32_t)b.len);
    for (size_t i = 0; i < rs->sampler_count; i++) {
        put_u32(&b, 0x55); /* D3D12_FILTER_ANISOTROPIC */
        put_u32(&b, 1);    /* address U, V, W: WRAP */
        put_u32(&b, 1);
        put_u32(&b, 1);
        put_f32(&b, 0.0f); /* MipLODBias */
        put_u32(&b, 16);   /* MaxAnisotropy */
        put_u32(&b, 4);    /* D3D12_COMPARISON_FUNC_LESS_EQUAL */
        put_u32(&b, 2);    /* D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE */
        put_f32(&b, 0.0f); /* MinLOD */
        put_f32(&b, 3.402823466e+38f); /* MaxLOD: D3D12_FLOAT32_MAX */
        put_u32(&b, rs->samplers[i][0]);
        put_u32(&b, rs->samplers[i][1]);
        put_u32(&b, 0); /* D3D12_SHADER_VISIBILITY_ALL */
    }
    return b;
}

/* --- remapping callbacks: the rules tests/c_program.rs mirrors --- */

typedef struct {
    atomic_uint resource_calls;
    atomic_uint io_calls;
} counters;

/* CBVs keep the default; SRVs, UAVs and samplers go to set 7 + space, binding
 * class * 100 + register (+ 50 for a UAV counter). */
static bool remap_resource(void *user, const untangle_resource_query *q, untangle_vk_binding *binding) {
    counters *c = user;
    atomic_fetch_add(&c->resource_calls, 1);
    if (q->resource.resource_class == UNTANGLE_RESOURCE_CLASS_CBV) return false;
    binding->set = 7u + q->resource.space;
    binding->binding = q->resource.resource_class * 100u + q->resource.base_register + (q->counter ? 50u : 0u);
    return true;
}

/* Inputs move one location up, outputs two; components stay. */
static bool remap_io(void *user, const untangle_io_query *q, untangle_io_location *location) {
    counters *c = user;
    atomic_fetch_add(&c->io_calls, 1);
    if (q->element.start_row < 0) return false;
    location->location = (uint32_t)q->element.start_row + (q->output ? 2u : 1u);
    location->component = q->element.start_col < 0 ? 0u : (uint32_t)q->element.start_col;
    return true;
}

/* --- option sets --- */

enum { MODE_COUNT = 9 };

/* One option set for one shader and what the first (sequential) translation gave. */
typedef struct {
    const char *name;
    int applies;               /* 0: not for this shader (xfb on a non-vertex shader) */
    int null_options;          /* translate with options = NULL */
    untangle_options *options; /* NULL with null_options, or when setting up failed */
    untangle_status status;    /* of setting up the options, then of the translation */
    untangle_result *result;   /* the sequential translation's, kept for the threads */
} mode;

/* New options with every default. */
static untangle_options *new_options(void) {
    untangle_options *o = NULL;
    if (untangle_options_create(&o) != UNTANGLE_OK || !o) fatal("options");
    return o;
}

/* Notes a setter's outcome: on failure, records it and drops the options. */
static void setup(mode *m, untangle_status st, untangle_error *err, const char *dir, const char *name) {
    if (st == UNTANGLE_OK) {
        if (err) fatal("a successful setter left an error object");
        return;
    }
    if (m->status == UNTANGLE_OK) {
        record_error(dir, name, m->name, st, err);
        m->status = st;
    } else {
        untangle_error_free(err);
    }
}

static void set_model(mode *m, untangle_binding_model model, uint32_t budget, const char *dir, const char *name) {
    untangle_error *err = NULL;
    if (untangle_options_set_binding_model(m->options, model) != UNTANGLE_OK) fatal("binding model");
    setup(m, untangle_options_set_max_push_constant_bytes(m->options, budget, &err), err, dir, name);
}

static void set_string(mode *m, const char *rs, const char *dir, const char *name) {
    untangle_error *err = NULL;
    untangle_status st =
        untangle_options_set_root_signature_string(m->options, rs, UNTANGLE_ROOT_SIGNATURE_VERSION_1_1, &err);
    setup(m, st, err, dir, name);
}

static void set_rts0(mode *m, const bytes_out *rts0, const char *dir, const char *name) {
    untangle_error *err = NULL;
    setup(m, untangle_options_set_root_signature_rts0(m->options, rts0->bytes, rts0->len, &err), err, dir, name);
}

/* Builds every option set of a shader (writing the root signatures it derives). */
static void build_modes(mode *modes, const untangle_shader *shader, counters *calls, const char *dir,
                        const char *name) {
    static const char *const names[MODE_COUNT] = {"default", "heap",         "direct", "rootargs", "rts0",
                                                  "spill",   "spill_direct", "remap",  "xfb"};
    for (int i = 0; i < MODE_COUNT; i++) {
        mode m = {names[i], 1, i == 0, i == 0 ? NULL : new_options(), UNTANGLE_OK, NULL};
        modes[i] = m;
    }
    char path[4096];
    root_signature tables = build_root_signature(shader, 0);
    root_signature rootargs = build_root_signature(shader, 1);
    char *tables_text = root_signature_string(&tables);
    char *rootargs_text = root_signature_string(&rootargs);
    bytes_out rts0 = root_signature_rts0(&rootargs);
    out_path(path, sizeof path, dir, name, "tables", "txt");
    if (!tables_text || !write_file(path, tables_text, strlen(tables_text))) fatal("cannot write a root signature");
    out_path(path, sizeof path, dir, name, "rootargs", "txt");
    if (!rootargs_text || !write_file(path, rootargs_text, strlen(rootargs_text)))
        fatal("cannot write a root signature");
    out_path(path, sizeof path, dir, name, "rootargs", "rts0");
    if (!write_file(path, rts0.bytes, rts0.len)) fatal("cannot write RTS0");

    set_string(&modes[1], tables_text, dir, name);
    set_model(&modes[1], UNTANGLE_BINDING_MODEL_HEAP, UNTANGLE_DEFAULT_MAX_PUSH_CONSTANT_BYTES, dir, name);
    set_string(&modes[2], tables_text, dir, name);
    set_model(&modes[2], UNTANGLE_BINDING_MODEL_DIRECT, UNTANGLE_DEFAULT_MAX_PUSH_CONSTANT_BYTES, dir, name);
    set_string(&modes[3], rootargs_text, dir, name);
    set_model(&modes[3], UNTANGLE_BINDING_MODEL_HEAP, 128, dir, name);
    set_rts0(&modes[4], &rts0, dir, name);
    set_model(&modes[4], UNTANGLE_BINDING_MODEL_HEAP, 128, dir, name);
    set_rts0(&modes[5], &rts0, dir, name);
    set_model(&modes[5], UNTANGLE_BINDING_MODEL_HEAP, 0, dir, name);
    set_string(&modes[6], rootargs_text, dir, name);
    set_model(&modes[6], UNTANGLE_BINDING_MODEL_DIRECT, 16, dir, name);
    if (untangle_options_set_root_descriptors(modes[6].options, UNTANGLE_ROOT_DESCRIPTORS_DESCRIPTOR) != UNTANGLE_OK)
        fatal("root descriptors");

    if (untangle_options_set_resource_remap(modes[7].options, remap_resource, calls) != UNTANGLE_OK)
        fatal("resource remap");
    if (untangle_options_set_io_remap(modes[7].options, remap_io, calls) != UNTANGLE_OK) fatal("io remap");

    /* Stream output for vertex shaders: every output row whole to slot 0, then a gap. */
    untangle_stage stage = 0;
    size_t outputs = 0;
    untangle_shader_stage(shader, &stage);
    untangle_shader_signature_count(shader, UNTANGLE_SIGNATURE_OUTPUT, &outputs);
    modes[8].applies = stage == UNTANGLE_STAGE_VERTEX && outputs > 0;
    if (modes[8].applies) {
        size_t cap = 1;
        for (size_t i = 0; i < outputs; i++) {
            untangle_signature_element e;
            untangle_shader_signature_element(shader, UNTANGLE_SIGNATURE_OUTPUT, i, &e);
            cap += e.semantic_index_count;
        }
        untangle_stream_output_declaration *decls = calloc(cap, sizeof *decls);
        size_t n = 0;
        uint32_t stride = 0;
        for (size_t i = 0; decls && i < outputs; i++) {
            untangle_signature_element e;
            untangle_shader_signature_element(shader, UNTANGLE_SIGNATURE_OUTPUT, i, &e);
            for (uint32_t row = 0; row < e.semantic_index_count; row++) {
                untangle_stream_output_declaration d = {0, e.semantic, e.semantic_indices[row], 0, e.cols, 0};
                decls[n++] = d;
                stride += 4 * e.cols;
            }
        }
        if (decls) {
            untangle_stream_output_declaration gap = {0, NULL, 0, 0, 1, 0};
            decls[n++] = gap;
            stride += 4;
        }
        untangle_error *err = NULL;
        setup(&modes[8], untangle_options_set_stream_output(modes[8].options, decls, n, &stride, 1, 0, &err), err,
              dir, name);
        free(decls); /* copied */
    }
    for (int i = 0; i < MODE_COUNT; i++) {
        if (modes[i].status != UNTANGLE_OK || !modes[i].applies) {
            untangle_options_free(modes[i].options);
            modes[i].options = NULL;
        }
    }
    free(tables_text);
    free(rootargs_text);
    free(rts0.bytes);
    rs_free(&tables);
    rs_free(&rootargs);
}

/* Writes the root arguments as NAME.MODE.args.txt: a summary line, then one per argument. */
static void write_root_arguments(const untangle_result *result, const char *dir, const char *name, const char *mode) {
    untangle_root_arguments a;
    if (untangle_result_root_arguments(result, &a) != UNTANGLE_OK || !a.has_layout) {
        fatal("no root arguments");
        return;
    }
    str s = {0};
    char line[256];
    snprintf(line, sizeof line, "push_constants %u\n", a.push_constant_bytes);
    append(&s, line);
    if (a.has_root_argument_buffer) {
        snprintf(line, sizeof line, "root_argument_buffer set %u binding %u size %u\n", a.root_argument_buffer_set,
                 a.root_argument_buffer_binding, a.root_argument_buffer_bytes);
        append(&s, line);
    }
    for (size_t i = 0; i < a.count; i++) {
        untangle_root_argument r;
        if (untangle_result_root_argument(result, i, &r) != UNTANGLE_OK) fatal("root argument");
        snprintf(line, sizeof line, "parameter %u %s offset %u size %u %s\n", r.parameter,
                 r.store == UNTANGLE_ROOT_ARGUMENT_IN_BUFFER ? "buffer" : "push", r.offset, r.size,
                 argument_kind_name(r.kind));
        append(&s, line);
    }
    untangle_root_argument past;
    if (untangle_result_root_argument(result, a.count, &past) != UNTANGLE_INVALID_ARGUMENT)
        fatal("a root argument past the count");
    char path[4096];
    out_path(path, sizeof path, dir, name, mode, "args.txt");
    if (!s.text || !write_file(path, s.text, s.len)) fatal("cannot write the root arguments");
    free(s.text);
}

/* Translates under one option set, writes what it gave, keeps the result. */
static void translate_mode(const untangle_shader *shader, mode *m, const char *dir, const char *name) {
    untangle_result *result = NULL;
    untangle_error *err = NULL;
    untangle_status st = untangle_translate(shader, m->options, &result, &err);
    m->status = st;
    if (st != UNTANGLE_OK) {
        if (result) fatal("a failed translation returned a result");
        record_error(dir, name, m->name, st, err);
        return;
    }
    if (err) fatal("a successful call left an error object");
    m->result = result;
    const uint32_t *words = NULL;
    size_t count = 0;
    const char *entry = NULL;
    untangle_stage stage = 0;
    if (untangle_result_spirv(result, &words, &count) != UNTANGLE_OK || !words || count < 5) fatal("no SPIR-V");
    if (words[0] != 0x07230203u) fatal("not SPIR-V");
    if (untangle_result_entry_point(result, &entry) != UNTANGLE_OK || !entry) fatal("no entry point name");
    if (untangle_result_stage(result, &stage) != UNTANGLE_OK) fatal("no stage");
    char path[4096];
    out_path(path, sizeof path, dir, name, m->name, "spv");
    if (!write_file(path, words, count * sizeof *words)) fatal("cannot write a .spv file");
    size_t bindings = 0;
    if (untangle_result_binding_count(result, &bindings) != UNTANGLE_OK) fatal("binding count");
    printf("  %s: %zu words, %s \"%s\", %zu descriptor bindings\n", m->name, count, stage_name(stage), entry,
           bindings);
    for (size_t i = 0; i < bindings; i++) {
        untangle_binding b;
        if (untangle_result_binding(result, i, &b) != UNTANGLE_OK) fatal("binding");
        printf("    %c%u space%u -> set %u binding %u (%s)\n", register_letter(b.resource_class), b.base_register,
               b.space, b.set, b.binding, b.name);
    }
    const char *json = NULL;
    if (untangle_result_layout_json(result, &json) != UNTANGLE_OK) fatal("layout JSON");
    untangle_root_arguments args;
    if (untangle_result_root_arguments(result, &args) != UNTANGLE_OK) fatal("root arguments");
    if (!json != !args.has_layout) fatal("a layout JSON without a layout, or the reverse");
    if (json) {
        out_path(path, sizeof path, dir, name, m->name, "layout.json");
        if (!write_file(path, json, strlen(json))) fatal("cannot write the layout");
        write_root_arguments(result, dir, name, m->name);
    }
}

/* --- several threads at once --- */

typedef struct {
    const untangle_shader *shader;
    const mode *modes;
    int first; /* the mode this thread starts with, so threads overlap on different ones */
    unsigned matched;
} thread_work;

static int same_result(const untangle_result *a, const untangle_result *b) {
    const uint32_t *wa, *wb;
    size_t na, nb;
    const char *ja, *jb;
    if (untangle_result_spirv(a, &wa, &na) != UNTANGLE_OK || untangle_result_spirv(b, &wb, &nb) != UNTANGLE_OK)
        return 0;
    if (na != nb || memcmp(wa, wb, na * sizeof *wa) != 0) return 0;
    if (untangle_result_layout_json(a, &ja) != UNTANGLE_OK || untangle_result_layout_json(b, &jb) != UNTANGLE_OK)
        return 0;
    return (!ja && !jb) || (ja && jb && strcmp(ja, jb) == 0);
}

static void *translate_all(void *arg) {
    thread_work *w = arg;
    for (int k = 0; k < MODE_COUNT; k++) {
        const mode *m = &w->modes[(w->first + k) % MODE_COUNT];
        if (!m->applies || (!m->options && !m->null_options)) continue;
        untangle_result *result = NULL;
        untangle_error *err = NULL;
        untangle_status st = untangle_translate(w->shader, m->options, &result, &err);
        if (st != m->status) {
            fatal("a translation on a thread ended otherwise than on the main thread");
        } else if (st == UNTANGLE_OK && !same_result(result, m->result)) {
            fatal("a translation on a thread differs from the main thread's");
        } else {
            w->matched++;
        }
        untangle_result_free(result);
        untangle_error_free(err);
    }
    return NULL;
}

/* Translates every option set on `threads` threads at once; returns the translations
 * that matched the sequential ones. */
static unsigned translate_on_threads(const untangle_shader *shader, const mode *modes, int threads) {
    pthread_t ids[64];
    thread_work work[64];
    int started = 0;
    for (int t = 0; t < threads && t < 64; t++) {
        thread_work w = {shader, modes, t % MODE_COUNT, 0};
        work[t] = w;
        if (pthread_create(&ids[t], NULL, translate_all, &work[t]) != 0) {
            fatal("pthread_create");
            break;
        }
        started++;
    }
    unsigned matched = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(ids[t], NULL);
        matched += work[t].matched;
    }
    return matched;
}

/* --- one shader --- */

static void print_signature(const untangle_shader *shader, untangle_signature_kind which, const char *title) {
    size_t n = 0;
    if (untangle_shader_signature_count(shader, which, &n) != UNTANGLE_OK) fatal("signature count");
    if (n == 0) return;
    printf("  %s:\n", title);
    for (size_t i = 0; i < n; i++) {
        untangle_signature_element e;
        if (untangle_shader_signature_element(shader, which, i, &e) != UNTANGLE_OK) fatal("signature element");
        printf("    %s%u: system value %u, component type %u, %ux%u at row %d col %d", e.semantic, e.semantic_index,
               e.system_value, e.component_type, e.rows, e.cols, e.start_row, e.start_col);
        if (e.semantic_index_count > 1) {
            printf(", indices");
            for (uint32_t k = 0; k < e.semantic_index_count; k++) printf(" %u", e.semantic_indices[k]);
        }
        printf("\n");
    }
}

static void print_reflection(const untangle_shader *shader) {
    untangle_stage stage = 0;
    uint32_t major = 0, minor = 0;
    size_t entries = 0, resources = 0;
    bool has_rs = false;
    if (untangle_shader_stage(shader, &stage) != UNTANGLE_OK) fatal("stage");
    if (untangle_shader_model(shader, &major, &minor) != UNTANGLE_OK) fatal("model");
    if (untangle_shader_entry_point_count(shader, &entries) != UNTANGLE_OK) fatal("entry count");
    if (untangle_shader_has_root_signature(shader, &has_rs, NULL) != UNTANGLE_OK) fatal("root signature");
    printf("  %s shader, model %u.%u, root signature: %s, entry points:", stage_name(stage), major, minor,
           has_rs ? "yes" : "no");
    for (size_t i = 0; i < entries; i++) {
        const char *entry = NULL;
        if (untangle_shader_entry_point_name(shader, i, &entry) != UNTANGLE_OK) fatal("entry name");
        printf(" %s", entry);
    }
    printf("\n");
    if (untangle_shader_resource_count(shader, &resources) != UNTANGLE_OK) fatal("resource count");
    for (size_t i = 0; i < resources; i++) {
        untangle_resource r;
        if (untangle_shader_resource(shader, i, &r) != UNTANGLE_OK) fatal("resource");
        char count[32];
        if (r.count == UNTANGLE_UNBOUNDED)
            snprintf(count, sizeof count, "unbounded");
        else
            snprintf(count, sizeof count, "%u", r.count);
        printf("  resource %s %c%u, space%u, count %s, kind %u%s \"%s\"\n", class_keyword(r.resource_class),
               register_letter(r.resource_class), r.base_register, r.space, count, r.kind,
               r.has_counter ? ", counter" : "", r.name);
    }
    print_signature(shader, UNTANGLE_SIGNATURE_INPUT, "inputs");
    print_signature(shader, UNTANGLE_SIGNATURE_OUTPUT, "outputs");
    print_signature(shader, UNTANGLE_SIGNATURE_PATCH_CONSTANT, "patch constants");
}

static unsigned long thread_matches = 0;

static void run_shader(const char *shader_path, const char *dir, int threads) {
    const char *name = base_name(shader_path);
    printf("== %s\n", name);
    size_t len = 0;
    unsigned char *bytes = read_file(shader_path, &len);
    if (!bytes) {
        fatal("cannot read a shader");
        return;
    }
    untangle_shader *shader = NULL;
    untangle_error *err = NULL;
    untangle_status st = untangle_shader_parse(bytes, len, &shader, &err);
    free(bytes); /* the shader keeps its own copy */
    if (st != UNTANGLE_OK) {
        record_error(dir, name, "parse", st, err);
        return;
    }
    print_reflection(shader);

    counters calls;
    atomic_init(&calls.resource_calls, 0);
    atomic_init(&calls.io_calls, 0);
    mode modes[MODE_COUNT];
    build_modes(modes, shader, &calls, dir, name);
    for (int i = 0; i < MODE_COUNT; i++) {
        if (modes[i].applies && (modes[i].options || modes[i].null_options))
            translate_mode(shader, &modes[i], dir, name);
    }
    printf("    callbacks: %u resource, %u I/O\n", atomic_load(&calls.resource_calls), atomic_load(&calls.io_calls));
    if (threads > 0) thread_matches += translate_on_threads(shader, modes, threads);
    for (int i = 0; i < MODE_COUNT; i++) {
        untangle_result_free(modes[i].result);
        untangle_options_free(modes[i].options);
    }
    untangle_shader_free(shader);
}

/* --- failures --- */

static void report(const char *what, untangle_status st, untangle_error *err) {
    const char *msg = err ? untangle_error_message(err) : NULL;
    printf("%s: %s%s%s\n", what, untangle_status_name(st), msg ? ": " : "", msg ? msg : "");
    if (err && untangle_error_status(err) != st) fatal("the error object's status differs from the call's");
    if (st == UNTANGLE_OK && err) fatal("an error object on success");
    untangle_error_free(err);
}

static void run_errors(const char *path) {
    size_t len = 0;
    unsigned char *bytes = read_file(path, &len);
    if (!bytes) {
        fatal("cannot read a shader");
        return;
    }
    untangle_shader *shader = NULL;
    untangle_error *err = NULL;
    untangle_status st;

    st = untangle_shader_parse(bytes, len / 2, &shader, &err);
    report("truncated container", st, err);
    untangle_shader_free(shader);
    shader = NULL;

    /* Every fourth byte of the second half flipped: the container holds, its DXIL does not. */
    unsigned char *corrupt = malloc(len);
    if (corrupt) {
        memcpy(corrupt, bytes, len);
        for (size_t i = len / 2; i < len; i += 4) corrupt[i] ^= 0x5Au;
        st = untangle_shader_parse(corrupt, len, &shader, &err);
        report("corrupt container", st, err);
        free(corrupt);
        untangle_shader_free(shader);
        shader = NULL;
    }

    unsigned char garbage[256];
    for (size_t i = 0; i < sizeof garbage; i++) garbage[i] = (unsigned char)(i * 37u + 11u);
    st = untangle_shader_parse(garbage, sizeof garbage, &shader, &err);
    report("garbage", st, err);
    st = untangle_shader_parse(garbage, 0, &shader, &err);
    report("empty input", st, err);
    st = untangle_shader_parse(garbage, sizeof garbage, &shader, NULL);
    report("garbage without an error object", st, NULL);

    static const char not_dxil[] = "define void @main() {\nentry:\n  ret void\n}\n";
    st = untangle_shader_parse((const uint8_t *)not_dxil, strlen(not_dxil), &shader, &err);
    report("non-DXIL module", st, err);
    untangle_shader_free(shader);
    shader = NULL;

    /* A DXBC container with no parts at all. */
    unsigned char empty_container[32] = {'D', 'X', 'B', 'C'};
    empty_container[20] = 1;  /* version */
    empty_container[24] = 32; /* total size */
    st = untangle_shader_parse(empty_container, sizeof empty_container, &shader, &err);
    report("container without DXIL", st, err);
    untangle_shader_free(shader);
    shader = NULL;

    st = untangle_shader_parse(NULL, 16, &shader, &err);
    report("NULL bytes", st, err);
    st = untangle_shader_parse(bytes, len, NULL, &err);
    report("NULL out-parameter", st, err);

    st = untangle_shader_parse(bytes, len, &shader, &err);
    report("parse", st, err);
    free(bytes);
    if (st != UNTANGLE_OK) return;

    untangle_resource r;
    report("resource out of range", untangle_shader_resource(shader, 100000, &r), NULL);
    report("resource into NULL", untangle_shader_resource(shader, 0, NULL), NULL);
    report("stage of NULL", untangle_shader_stage(NULL, NULL), NULL);
    report("signature kind 9", untangle_shader_signature_count(shader, 9, &len), NULL);
    report("entry point of NULL", untangle_shader_entry_point_name(NULL, 0, NULL), NULL);

    untangle_options *options = NULL;
    untangle_result *result = NULL;
    untangle_options_create(&options);
    /* Only b7, space9: the shader's resources are not covered. */
    st = untangle_options_set_root_signature_string(options, "DescriptorTable(CBV(b7, space = 9))",
                                                    UNTANGLE_ROOT_SIGNATURE_VERSION_1_1, &err);
    report("set narrow root signature", st, err);
    st = untangle_translate(shader, options, &result, &err);
    report("uncovered register", st, err);
    if (result) fatal("a result from a failed translation");
    st = untangle_options_set_root_signature_string(options, "DescriptorTable(SRV(t0)", UNTANGLE_ROOT_SIGNATURE_VERSION_1_1,
                                                    &err);
    report("malformed root signature string", st, err);
    st = untangle_options_set_root_signature_string(options, "RootFlags(0)", 7, &err);
    report("root signature version 7", st, err);
    st = untangle_options_set_root_signature_string(options, NULL, UNTANGLE_ROOT_SIGNATURE_VERSION_1_1, &err);
    report("NULL root signature string", st, err);
    static const unsigned char bad_rts0[8] = {9, 0, 0, 0, 0, 0, 0, 0};
    st = untangle_options_set_root_signature_rts0(options, bad_rts0, sizeof bad_rts0, &err);
    report("malformed RTS0", st, err);
    st = untangle_options_set_root_signature_rts0(options, NULL, 24, &err);
    report("NULL RTS0", st, err);
    report("binding model 7", untangle_options_set_binding_model(options, 7), NULL);
    report("root descriptors 7", untangle_options_set_root_descriptors(options, 7), NULL);
    st = untangle_options_set_max_push_constant_bytes(options, 126, &err);
    report("push-constant budget 126", st, err);
    st = untangle_options_set_max_push_constant_bytes(NULL, 128, &err);
    report("push-constant budget on NULL options", st, err);
    untangle_options_clear_root_signature(options);

    st = untangle_options_set_binding_map_json(options, "[{\"class\": \"X\"}]", &err);
    report("bad binding map", st, err);
    st = untangle_options_set_binding_map_json(options, "[{\"class\":\"SRV\",\"space\":0,\"register\":0,\"set\":3,\"binding\":4}]",
                                               &err);
    report("binding map", st, err);

    untangle_stream_output_declaration decl = {0, "SV_Position", 0, 0, 4, 9};
    uint32_t stride = 16;
    st = untangle_options_set_stream_output(options, &decl, 1, &stride, 1, 0, &err);
    report("stream output slot 9", st, err);
    decl.output_slot = 0;
    st = untangle_options_set_stream_output(options, &decl, 1, NULL, 1, 0, &err);
    report("stream output NULL strides", st, err);
    st = untangle_options_set_stream_output(options, &decl, 1, &stride, 1, 0, &err);
    report("stream output", st, err);
    st = untangle_translate(shader, options, &result, &err);
    report("stream output on this shader", st, err);
    untangle_result_free(result);
    result = NULL;
    st = untangle_options_set_stream_output(options, NULL, 0, NULL, 0, 0, &err);
    report("stream output removed", st, err);
    st = untangle_translate(shader, options, &result, &err);
    report("translate", st, err);
    untangle_root_arguments args;
    report("root arguments without a root signature", untangle_result_root_arguments(result, &args), NULL);
    if (args.has_layout || args.count) fatal("root arguments without a root signature");
    report("root arguments into NULL", untangle_result_root_arguments(result, NULL), NULL);
    report("root arguments of NULL", untangle_result_root_arguments(NULL, &args), NULL);
    report("SPIR-V of NULL", untangle_result_spirv(NULL, NULL, NULL), NULL);
    untangle_result_free(result);

    st = untangle_translate(NULL, options, &result, &err);
    report("translate NULL shader", st, err);
    report("translate into NULL", untangle_translate(shader, options, NULL, NULL), NULL);
    report("options into NULL", untangle_options_create(NULL), NULL);
    report("remap on NULL options", untangle_options_set_resource_remap(NULL, remap_resource, NULL), NULL);
    report("error status of NULL", untangle_error_status(NULL), NULL);
    if (untangle_error_message(NULL) != NULL) fatal("a message for NULL");

    uint32_t vmajor = 99, vminor = 99, vpatch = 99;
    const char *version = NULL;
    report("version", untangle_version(&vmajor, &vminor, &vpatch, &version), NULL);
    if (vmajor != UNTANGLE_VERSION_MAJOR || vminor != UNTANGLE_VERSION_MINOR || vpatch != UNTANGLE_VERSION_PATCH ||
        !version)
        fatal("version mismatch");
    report("version into NULLs", untangle_version(NULL, NULL, NULL, NULL), NULL);

    untangle_options_free(options);
    untangle_shader_free(shader);
    /* Freeing NULL is fine. */
    untangle_shader_free(NULL);
    untangle_options_free(NULL);
    untangle_result_free(NULL);
    untangle_error_free(NULL);
}

int main(int argc, char **argv) {
    int threads = 4;
    int first = 1;
    if (argc >= 3 && strcmp(argv[1], "--errors") == 0) {
        run_errors(argv[2]);
    } else {
        if (argc >= 3 && strcmp(argv[1], "--threads") == 0) {
            threads = atoi(argv[2]);
            first = 3;
        }
        if (argc < first + 1) {
            fprintf(stderr, "usage: %s [--threads N] OUTDIR SHADER... | --errors SHADER\n", argv[0]);
            return 2;
        }
        for (int i = first + 1; i < argc; i++) run_shader(argv[i], argv[first], threads);
        printf("threads: %lu translations on %d threads matched\n", thread_matches, threads);
    }
    int fatal_total = atomic_load(&fatal_count);
    if (fatal_total) {
        fprintf(stderr, "%d fatal problems\n", fatal_total);
        return 1;
    }
    return 0;
}
