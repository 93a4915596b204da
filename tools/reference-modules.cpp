// Writes the reference translator's (dxil-spirv's) module of each input, translated the way a
// D3D12 layer on the measuring device asks for it, for side-by-side module comparisons
// (`tools/bench-reference.py`: sizes, `untangle-gpu pipeline-times` and `gpu-times`).
//
// Usage: reference-modules OUT_DIR FILE...   (writes OUT_DIR/<file name>.spv; prints
// `<file name>\tok|fail` per input)
//
// What it asks of dxil-spirv, beyond its C API defaults:
// - bindings placed as untangle places them by default (descriptor set = register space;
//   binding = class base + register: CBV 0, SRV 1000, UAV 2000, sampler 3000, UAV counter
//   4000; raw and structured buffers as storage buffers), so both modules bind the same
//   descriptors (without remappers dxil-spirv puts every resource at set 0, binding 0);
// - compute-shader derivatives with quad groups (`DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES`
//   with the KHR extension, and `..._QUAD`): what vkd3d-proton passes on a device with
//   `computeDerivativeGroupQuads` (the H200 has it) and what dxil-spirv's own command line
//   uses by default. Its C API default is the linear form with remapped thread ids, which
//   neither of those users would get.
// Every other option keeps the C API default, as untangle's command line keeps its own.
// Build: see `reference_modules_tool` in tools/bench-reference.py.
#include "dxil_spirv_c.h"
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

void quiet(void *, dxil_spv_log_level, const char *) {}

// Register-class bases of untangle's default placement (`docs/root-signature.md`).
constexpr unsigned CBV_BASE = 0, SRV_BASE = 1000, UAV_BASE = 2000, SAMPLER_BASE = 3000, COUNTER_BASE = 4000;

void place(const dxil_spv_d3d_binding &d3d, unsigned base, dxil_spv_vulkan_binding &vk) {
  vk.set = d3d.register_space;
  vk.binding = base + d3d.register_index;
  // A non-zero alignment marks a raw or structured buffer: a storage buffer.
  vk.descriptor_type = d3d.alignment ? DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO : DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY;
}

dxil_spv_bool remap_srv(void *, const dxil_spv_d3d_binding *d3d, dxil_spv_srv_vulkan_binding *vk) {
  place(*d3d, SRV_BASE, vk->buffer_binding);
  return DXIL_SPV_TRUE;
}

dxil_spv_bool remap_sampler(void *, const dxil_spv_d3d_binding *d3d, dxil_spv_vulkan_binding *vk) {
  place(*d3d, SAMPLER_BASE, *vk);
  return DXIL_SPV_TRUE;
}

dxil_spv_bool remap_uav(void *, const dxil_spv_uav_d3d_binding *d3d, dxil_spv_uav_vulkan_binding *vk) {
  place(d3d->d3d_binding, UAV_BASE, vk->buffer_binding);
  place(d3d->d3d_binding, COUNTER_BASE, vk->counter_binding);
  vk->counter_binding.descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY;
  return DXIL_SPV_TRUE;
}

dxil_spv_bool remap_cbv(void *, const dxil_spv_d3d_binding *d3d, dxil_spv_cbv_vulkan_binding *vk) {
  vk->push_constant = DXIL_SPV_FALSE;
  place(*d3d, CBV_BASE, vk->vulkan.uniform_binding);
  vk->vulkan.uniform_binding.descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY;
  return DXIL_SPV_TRUE;
}

bool add_device_options(dxil_spv_converter conv) {
  dxil_spv_option_compute_shader_derivatives derivatives = {};
  derivatives.base.type = DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES;
  derivatives.supports_nv = DXIL_SPV_FALSE;
  derivatives.supports_khr = DXIL_SPV_TRUE;
  dxil_spv_option_compute_shader_derivatives_quad quad = {};
  quad.base.type = DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_QUAD;
  quad.supports_quad = DXIL_SPV_TRUE;
  return dxil_spv_converter_add_option(conv, &derivatives.base) == DXIL_SPV_SUCCESS &&
         dxil_spv_converter_add_option(conv, &quad.base) == DXIL_SPV_SUCCESS;
}

// The module of one DXIL file, or nothing where dxil-spirv refuses it.
bool translate(const std::vector<char> &dxil, std::vector<char> &spirv) {
  dxil_spv_parsed_blob blob = nullptr;
  dxil_spv_converter conv = nullptr;
  bool ok = dxil_spv_parse_dxil_blob(dxil.data(), dxil.size(), &blob) == DXIL_SPV_SUCCESS &&
            dxil_spv_create_converter(blob, &conv) == DXIL_SPV_SUCCESS;
  if (ok) {
    dxil_spv_converter_set_srv_remapper(conv, remap_srv, nullptr);
    dxil_spv_converter_set_sampler_remapper(conv, remap_sampler, nullptr);
    dxil_spv_converter_set_uav_remapper(conv, remap_uav, nullptr);
    dxil_spv_converter_set_cbv_remapper(conv, remap_cbv, nullptr);
    ok = add_device_options(conv) && dxil_spv_converter_run(conv) == DXIL_SPV_SUCCESS;
  }
  dxil_spv_compiled_spirv compiled = {};
  if (ok)
    ok = dxil_spv_converter_get_compiled_spirv(conv, &compiled) == DXIL_SPV_SUCCESS;
  if (ok) {
    const char *words = static_cast<const char *>(compiled.data);
    spirv.assign(words, words + compiled.size);
  }
  if (conv)
    dxil_spv_converter_free(conv);
  if (blob)
    dxil_spv_parsed_blob_free(blob);
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: reference-modules OUT_DIR FILE...\n");
    return 2;
  }
  const std::string out = argv[1];
  dxil_spv_set_thread_log_callback(quiet, nullptr);
  for (int i = 2; i < argc; i++) {
    std::ifstream in(argv[i], std::ios::binary);
    const std::vector<char> dxil((std::istreambuf_iterator<char>(in)), {});
    std::string name = argv[i];
    name = name.substr(name.find_last_of('/') + 1);
    std::vector<char> spirv;
    const bool ok = in && translate(dxil, spirv);
    if (ok) {
      std::ofstream o(out + "/" + name + ".spv", std::ios::binary);
      o.write(spirv.data(), static_cast<std::streamsize>(spirv.size()));
    }
    printf("%s\t%s\n", name.c_str(), ok ? "ok" : "fail");
  }
  return 0;
}
