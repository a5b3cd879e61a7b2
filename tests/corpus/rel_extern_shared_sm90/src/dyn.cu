// Two kernels with dynamic shared memory, linked with -r first (their
// `externsharedinstance`s at 0x10 and 0x30), then finally: the kernel with
// no shared variable of its own keeps its section's 0x20 and gets the
// array there; the one with 48 bytes gets it at 0x30, the section aligned
// to 0x30 as the instance's st_value says.
__global__ void k_plain(int *o) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = dyn[threadIdx.x + 1];
}
__global__ void k_static(int *o) {
  extern __shared__ int dyn[];
  __shared__ char own[48];
  own[threadIdx.x] = o[2];
  dyn[threadIdx.x] = o[threadIdx.x] + own[threadIdx.x + 1];
  __syncthreads();
  o[threadIdx.x] = dyn[threadIdx.x + 1];
}
