// Cluster launch control in a device function (sm_100): ptxas marks it
// EIATTR_CLUSTER_LAUNCH_CONTROL_USED.
#include <cstdint>
__device__ __noinline__ void ask_cancel(void* reply, uint64_t* bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];"
      ::"r"((uint32_t)__cvta_generic_to_shared(reply)), "r"((uint32_t)__cvta_generic_to_shared(bar)) : "memory");
}
__global__ void worker(int* out) {
  __shared__ alignas(16) int reply[4];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) ask_cancel(reply, &bar);
  __syncthreads();
  out[blockIdx.x] = reply[1];
}
