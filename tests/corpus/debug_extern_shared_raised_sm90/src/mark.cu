// A callee with a function-scope shared array (`.nv_debug.shared` under -G)
// and a kernel whose own array ends past the others' (0x416).
extern __shared__ char early[];
__device__ __noinline__ void mark(int i) {
  __shared__ char flags[3];
  flags[i % 3] = i;
  early[i] = flags[(i + 1) % 3];
}
__global__ void tags(char *o) {
  __shared__ short own[5];
  own[threadIdx.x % 5] = 1;
  early[threadIdx.x] = o[threadIdx.x] + own[0];
  mark(threadIdx.x);
  o[0] = early[7];
}
