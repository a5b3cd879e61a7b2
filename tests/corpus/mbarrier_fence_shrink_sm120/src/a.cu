// mbarrier + fence: ptxas (-c, sm_100) puts 4 dummy `@!PT LDS RZ,[RZ]` before the fence and
// records the mbarrier instructions in EIATTR_MBARRIER_INSTR_OFFSETS
__global__ void k(int *p, int *q) {
  __shared__ unsigned long long bar;
  __shared__ int s[64];
  unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(addr), "r"(blockDim.x) : "memory");
  __syncthreads();
  s[threadIdx.x] = p[threadIdx.x];
  __threadfence_block();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  unsigned long long st;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(addr) : "memory");
  q[threadIdx.x] = s[threadIdx.x ^ 1] + (int)st;
}
