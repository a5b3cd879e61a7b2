// A device function that waits on an mbarrier its caller passes in: ptxas
// gives it EIATTR_NUM_MBARRIERS 0.
#include <cstdint>
__device__ __noinline__ void wait_phase(uint64_t* bar, unsigned phase) {
  asm volatile(
      "{\n.reg .pred p;\nretry: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra retry;\n}"
      ::"r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(phase) : "memory");
}
