// The only kernel allocates tensor memory of one CTA itself and calls a
// function allocating it for a CTA pair: nvlink refuses the link, saying
// so once.
#include <cstdint>
__device__ __noinline__ void alloc_pair(uint32_t* where) {
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;"
               ::"r"((uint32_t)__cvta_generic_to_shared(where)) : "memory");
#endif
}
__global__ void own_and_pair(uint32_t* out) {
  __shared__ uint32_t base[2];
#ifdef __CUDA_ARCH_FAMILY_SPECIFIC__
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;"
               ::"r"((uint32_t)__cvta_generic_to_shared(base)) : "memory");
#endif
  alloc_pair(base + 1);
  out[0] = base[0] + base[1];
}
