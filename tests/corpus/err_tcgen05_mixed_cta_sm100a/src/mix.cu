// A kernel that may reach tcgen05 code of one CTA and of a CTA pair:
// nvlink refuses the link.
#include <cstdint>
__device__ __noinline__ void alloc_one(uint32_t* where) {
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;"
               ::"r"((uint32_t)__cvta_generic_to_shared(where)) : "memory");
#endif
}
__device__ __noinline__ void alloc_pair(uint32_t* where) {
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;"
               ::"r"((uint32_t)__cvta_generic_to_shared(where)) : "memory");
#endif
}
__global__ void both(uint32_t* out, int pair) {
  __shared__ uint32_t base;
  if (pair) alloc_pair(&base); else alloc_one(&base);
  out[0] = base;
}
