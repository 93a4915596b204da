/*
 * A C11 program that uses untangle through its header only (tests/c_program.rs builds and
 * runs it, and compares what it writes with the Rust API's output).
 *
 *   translate OUTDIR SHADER...
 *       for each shader: parse, print its reflection, translate it four ways and write
 *       OUTDIR/NAME.MODE.spv (or OUTDIR/NAME.MODE.err: "STATUS\nmessage"):
 *         default   default options (options = NULL)
 *         rootsig   a root signature string covering its resources (written to
 *                   NAME.rootsig.txt), heap model; the layout JSON to NAME.layout.json
 *         remap     resource and stage-I/O remapping callbacks (rules below)
 *         xfb       vertex shaders: stream output of every output row to slot 0, a gap
 *   translate --errors SHADER
 *       exercise failures; print "case: STATUS" lines
 */
#include "untangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fatal_count = 0;

static void fatal(const char *what) {
    fprintf(stderr, "FATAL: %s\n", what);
    fatal_count++;
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

/* Writes OUTDIR/NAME.MODE.EXT. */
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

/* Translates and writes NAME.MODE.spv, or NAME.MODE.err. Returns the result (or NULL). */
static untangle_result *translate_to(const untangle_shader *shader, const untangle_options *options,
                                     const char *dir, const char *name, const char *mode) {
    untangle_result *result = NULL;
    untangle_error *err = NULL;
    untangle_status st = untangle_translate(shader, options, &result, &err);
    if (st != UNTANGLE_OK) {
        if (result) fatal("a failed translation returned a result");
        record_error(dir, name, mode, st, err);
        return NULL;
    }
    if (err) fatal("a successful call left an error object");
    const uint32_t *words = NULL;
    size_t count = 0;
    const char *entry = NULL;
    untangle_stage stage = 0;
    if (untangle_result_spirv(result, &words, &count) != UNTANGLE_OK || !words || count < 5) fatal("no SPIR-V");
    if (words[0] != 0x07230203u) fatal("not SPIR-V");
    if (untangle_result_entry_point(result, &entry) != UNTANGLE_OK || !entry) fatal("no entry point name");
    if (untangle_result_stage(result, &stage) != UNTANGLE_OK) fatal("no stage");
    char path[4096];
    out_path(path, sizeof path, dir, name, mode, "spv");
    if (!write_file(path, words, count * sizeof *words)) fatal("cannot write a .spv file");
    size_t bindings = 0;
    if (untangle_result_binding_count(result, &bindings) != UNTANGLE_OK) fatal("binding count");
    printf("  %s: %zu words, %s \"%s\", %zu descriptor bindings\n", mode, count, stage_name(stage), entry, bindings);
    for (size_t i = 0; i < bindings; i++) {
        untangle_binding b;
        if (untangle_result_binding(result, i, &b) != UNTANGLE_OK) fatal("binding");
        printf("    %c%u space%u -> set %u binding %u (%s)\n", register_letter(b.resource_class), b.base_register,
               b.space, b.set, b.binding, b.name);
    }
    return result;
}

/* --- reflection --- */

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

/* Appends to a growing string. */
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

/* A root signature covering every declared range: one table of the bounded CBV/SRV/UAV
 * ranges, one of the bounded sampler ranges, a table of its own for each unbounded range
 * (nothing may follow one in a table without an explicit offset), and heap indexing
 * allowed (SM 6.6 shaders index the heaps directly). */
static char *covering_root_signature(const untangle_shader *shader) {
    str s = {0};
    append(&s, "RootFlags(CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | SAMPLER_HEAP_DIRECTLY_INDEXED)");
    size_t n = 0;
    untangle_shader_resource_count(shader, &n);
    for (int samplers = 0; samplers <= 1; samplers++) {
        int opened = 0;
        for (int unbounded = 0; unbounded <= 1; unbounded++) {
            for (size_t i = 0; i < n; i++) {
                untangle_resource r;
                if (untangle_shader_resource(shader, i, &r) != UNTANGLE_OK) fatal("resource");
                if ((r.resource_class == UNTANGLE_RESOURCE_CLASS_SAMPLER) != samplers) continue;
                if ((r.count == UNTANGLE_UNBOUNDED) != unbounded) continue;
                char range[256];
                char count[32];
                if (unbounded)
                    snprintf(count, sizeof count, "unbounded");
                else
                    snprintf(count, sizeof count, "%u", r.count);
                snprintf(range, sizeof range, "%s%s(%c%u, space = %u, numDescriptors = %s)",
                         opened ? ", " : ", DescriptorTable(", class_keyword(r.resource_class),
                         register_letter(r.resource_class), r.base_register, r.space, count);
                append(&s, range);
                opened = 1;
                if (unbounded) {
                    append(&s, ")");
                    opened = 0;
                }
            }
            if (opened) append(&s, ")");
            opened = 0;
        }
    }
    return s.text;
}

/* --- remapping callbacks: the rules tests/c_program.rs mirrors --- */

typedef struct {
    unsigned resource_calls;
    unsigned io_calls;
} counters;

/* CBVs keep the default; SRVs, UAVs and samplers go to set 7 + space, binding
 * class * 100 + register (+ 50 for a UAV counter). */
static bool remap_resource(void *user, const untangle_resource_query *q, untangle_vk_binding *binding) {
    counters *c = user;
    c->resource_calls++;
    if (q->resource.resource_class == UNTANGLE_RESOURCE_CLASS_CBV) return false;
    binding->set = 7u + q->resource.space;
    binding->binding = q->resource.resource_class * 100u + q->resource.base_register + (q->counter ? 50u : 0u);
    return true;
}

/* Inputs move one location up, outputs two; components stay. */
static bool remap_io(void *user, const untangle_io_query *q, untangle_io_location *location) {
    counters *c = user;
    c->io_calls++;
    if (q->element.start_row < 0) return false;
    location->location = (uint32_t)q->element.start_row + (q->output ? 2u : 1u);
    location->component = q->element.start_col < 0 ? 0u : (uint32_t)q->element.start_col;
    return true;
}

static void run_shader(const char *shader_path, const char *dir) {
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

    /* Reflection. */
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

    /* 1. Default options. */
    untangle_result_free(translate_to(shader, NULL, dir, name, "default"));

    /* 2. A root signature string covering its resources. */
    char *rs = covering_root_signature(shader);
    char path[4096];
    out_path(path, sizeof path, dir, name, "rootsig", "txt");
    if (!rs || !write_file(path, rs, strlen(rs))) fatal("cannot write the root signature");
    untangle_options *options = NULL;
    if (untangle_options_create(&options) != UNTANGLE_OK) fatal("options");
    st = untangle_options_set_root_signature_string(options, rs, UNTANGLE_ROOT_SIGNATURE_VERSION_1_1, &err);
    free(rs);
    if (st != UNTANGLE_OK) {
        record_error(dir, name, "rootsig", st, err);
    } else if (untangle_options_set_binding_model(options, UNTANGLE_BINDING_MODEL_HEAP) != UNTANGLE_OK) {
        fatal("binding model");
    } else {
        untangle_result *result = translate_to(shader, options, dir, name, "rootsig");
        const char *json = NULL;
        if (result && (untangle_result_layout_json(result, &json) != UNTANGLE_OK || !json)) fatal("no layout JSON");
        out_path(path, sizeof path, dir, name, "layout", "json");
        if (json && !write_file(path, json, strlen(json))) fatal("cannot write the layout");
        untangle_result_free(result);
    }
    untangle_options_free(options);

    /* 3. Remapping callbacks. */
    counters calls = {0, 0};
    if (untangle_options_create(&options) != UNTANGLE_OK) fatal("options");
    if (untangle_options_set_resource_remap(options, remap_resource, &calls) != UNTANGLE_OK) fatal("resource remap");
    if (untangle_options_set_io_remap(options, remap_io, &calls) != UNTANGLE_OK) fatal("io remap");
    untangle_result *result = translate_to(shader, options, dir, name, "remap");
    if (result) {
        const char *json = (const char *)1;
        if (untangle_result_layout_json(result, &json) != UNTANGLE_OK || json) fatal("layout JSON without a root signature");
        printf("    callbacks: %u resource, %u I/O\n", calls.resource_calls, calls.io_calls);
    }
    untangle_result_free(result);
    untangle_options_free(options);

    /* 4. Stream output for vertex shaders: every output row whole to slot 0, then a gap. */
    size_t outputs = 0;
    untangle_shader_signature_count(shader, UNTANGLE_SIGNATURE_OUTPUT, &outputs);
    if (stage == UNTANGLE_STAGE_VERTEX && outputs > 0) {
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
        if (untangle_options_create(&options) != UNTANGLE_OK) fatal("options");
        st = untangle_options_set_stream_output(options, decls, n, &stride, 1, 0, &err);
        free(decls); /* copied */
        if (st != UNTANGLE_OK)
            record_error(dir, name, "xfb", st, err);
        else
            untangle_result_free(translate_to(shader, options, dir, name, "xfb"));
        untangle_options_free(options);
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
    static const unsigned char bad_rts0[8] = {9, 0, 0, 0, 0, 0, 0, 0};
    st = untangle_options_set_root_signature_rts0(options, bad_rts0, sizeof bad_rts0, &err);
    report("malformed RTS0", st, err);
    report("binding model 7", untangle_options_set_binding_model(options, 7), NULL);
    report("root descriptors 7", untangle_options_set_root_descriptors(options, 7), NULL);
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
    if (argc >= 3 && strcmp(argv[1], "--errors") == 0) {
        run_errors(argv[2]);
    } else if (argc >= 2) {
        for (int i = 2; i < argc; i++) run_shader(argv[i], argv[1]);
    } else {
        fprintf(stderr, "usage: %s OUTDIR SHADER... | --errors SHADER\n", argv[0]);
        return 2;
    }
    if (fatal_count) {
        fprintf(stderr, "%d fatal problems\n", fatal_count);
        return 1;
    }
    return 0;
}
