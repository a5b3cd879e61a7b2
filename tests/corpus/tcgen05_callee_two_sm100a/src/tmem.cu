// Tensor-memory allocation in device functions of their own (sm_100a):
// ptxas marks them EIATTR_TCGEN05_1CTA_USED, EIATTR_AT_ENTRY_FRAGMENTS and
// EIATTR_VRC_CTA_INIT_COUNT 0x80. Guarded by __CUDA_ARCH_FAMILY_SPECIFIC__,
// without which `nvcc -arch=sm_100a -c` fails in ptxas.
#include <cstdint>
__device__ __noinline__ void grab_columns(uint32_t* where) {
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;"
               ::"r"((uint32_t)__cvta_generic_to_shared(where)) : "memory");
#endif
}
__device__ __noinline__ void give_back(uint32_t taddr) {
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" ::"r"(taddr) : "memory");
#endif
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
#endif
}
