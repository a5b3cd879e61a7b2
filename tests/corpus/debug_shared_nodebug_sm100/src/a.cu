// A kernel with a __shared__ array and fences, built with -G and linked without -g.
__global__ void k(int *p, int *q) {
  __shared__ int s[64];
  s[threadIdx.x] = p[threadIdx.x];
  __threadfence_block();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  q[threadIdx.x] = s[threadIdx.x ^ 1];
}
