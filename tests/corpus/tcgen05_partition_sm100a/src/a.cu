// One tcgen05.alloc: the code reads the driver-sized reserved shared
// memory partition __nv_reservedSMEM_tcgen05_partition.
#include <cstdint>
__global__ void tmem_kernel(unsigned *out) {
  __shared__ uint32_t tmem_base;
  uint32_t slot = static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base));
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(slot) : "memory");
  __syncthreads();
  out[threadIdx.x] = tmem_base;
}
