#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#define __NV_MODULE_ID _e40cb609_7_util_cu_g_calls
#define __NV_CUBIN_HANDLE_STORAGE__ extern
#if !defined(__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__)
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#endif
#include "crt/host_runtime.h"
#include "util.fatbin.c"
extern __attribute__((visibility("hidden"))) void __device_stub__Z7k_resetv(void);
static void __nv_cudaEntityRegisterCallback(void **);
static void __sti____cudaRegisterAll(void) __attribute__((__constructor__));
__attribute__((visibility("hidden"))) void __device_stub__Z7k_resetv(void){__cudaLaunchPrologue(1);__cudaLaunch(((char *)((void ( *)(void))k_reset)));}
# 12 "src/util.cu"
void k_reset(void)
# 12 "src/util.cu"
{__device_stub__Z7k_resetv(); }
# 1 ".keep/util.cudafe1.stub.c"
static void __nv_cudaEntityRegisterCallback( void **__T2) {  __nv_dummy_param_ref(__T2); __nv_save_fatbinhandle_for_managed_rt(__T2); __cudaRegisterEntry(__T2, ((void ( *)(void))k_reset), _Z7k_resetv, (-1)); __cudaRegisterVariable(__T2, __shadow_var(g_calls,::g_calls), 0, 4UL, 0, 0); }
static void __sti____cudaRegisterAll(void) {  ____cudaRegisterLinkedBinary(__nv_cudaEntityRegisterCallback);  }

#pragma GCC diagnostic pop
