// An empty C++ library in dxil_spirv_dep (meson.build says why): it makes meson link what
// depends on this subproject with the C++ driver, as with dxil-spirv (a C++ library).
namespace untangle_dxil_spirv
{
int link_language_is_cpp()
{
	return 1;
}
}
