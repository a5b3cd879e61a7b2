// Built without -G: two kernels, one with an early exit.
__global__ void bump(int* d) {
  if (d[0] < 0) return;
  d[threadIdx.x] += 1;
}
__global__ void clear(int* d) { d[threadIdx.x] = 0; }
