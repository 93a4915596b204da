//! D3D12 root signatures (RTS0 and the HLSL string) and their lowering to Vulkan layouts.
//! Filled by the root-signature work.
