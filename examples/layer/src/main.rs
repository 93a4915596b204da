//! What a D3D12-on-Vulkan layer does with untangle, in order:
//!
//! 1. at `CreateRootSignature`: parse and validate the root signature and lower it once to a
//!    Vulkan pipeline layout (the layout depends on the root signature alone);
//! 2. at pipeline creation: parse each shader, reflect it (stage, resources, vertex inputs),
//!    translate it against the root signature, placing vertex attributes by semantic to match
//!    the input layout;
//! 3. hand the SPIR-V words to `vkCreateShaderModule`.
//!
//! `cargo run -p untangle-layer-example -- SHADER [ROOT_SIGNATURE_STRING]`

use std::sync::Arc;
use untangle::rootsig::{self, BindingModel, LayoutOptions, Version};
use untangle::{IoLocation, IoRemap, Options, RootSignatureBinding, Shader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: untangle-layer-example SHADER [ROOT_SIGNATURE_STRING]")?;
    let shader = Shader::parse(&std::fs::read(&path)?)?;
    println!(
        "{path}: {:?} shader, model {}.{}",
        shader.stage(),
        shader.shader_model().major,
        shader.shader_model().minor
    );
    for r in shader.resources().iter() {
        println!("  resource {} ({:?}) {}", r.register(), r.kind, r.name);
    }

    // 1. The root signature (the application's, or one covering a table of everything).
    let text = args.next().unwrap_or_else(|| "DescriptorTable(CBV(b0, numDescriptors = 8), SRV(t0, numDescriptors = 8), UAV(u0, numDescriptors = 8)), DescriptorTable(Sampler(s0, numDescriptors = 4))".into());
    let signature = rootsig::parse_hlsl(&text, Version::V1_1)?;
    rootsig::validate(&signature)?;
    let layout = LayoutOptions { model: BindingModel::Heap, ..Default::default() };

    // 2. Vertex attributes by semantic: the input layout's order (here: alphabetical).
    let semantics: Arc<Vec<String>> = Arc::new({
        let mut s: Vec<String> = shader
            .signatures()
            .map(|sig| {
                sig.inputs
                    .iter()
                    .map(|e| format!("{}{}", e.semantic, e.semantic_indices.first().unwrap_or(&0)))
                    .collect()
            })
            .unwrap_or_default();
        s.sort();
        s
    });
    let io_remap = IoRemap::new(move |q| {
        if q.output || q.stage != untangle::ShaderKind::Vertex {
            return None;
        }
        let name = format!("{}{}", q.element.semantic, q.element.semantic_indices.first().unwrap_or(&0));
        let location = semantics.iter().position(|s| *s == name)? as u32;
        Some(IoLocation { location, component: 0 })
    });
    let options = Options {
        root_signature: Some(RootSignatureBinding { signature, layout }),
        io_remap: Some(io_remap),
        ..Default::default()
    };
    let t = shader.translate(&options)?;

    // 3. What vkCreatePipelineLayout and vkCreateShaderModule need.
    if let Some(report) = &t.layout {
        println!(
            "  push constants: {} bytes; {} descriptor sets",
            report.layout.push_constants.size,
            report.layout.sets.len()
        );
    }
    println!("  SPIR-V: {} words, entry point `{}`", t.words.len(), t.entry_point);
    Ok(())
}
