// A kernel that launches two others from the device: it takes neither
// one's shared memory (the extern array of one, the module array of the
// other), and gets no .nv.shared section of its own.
extern __global__ void fill_dynamic(int *p);
extern __global__ void fill_module(int *p);
__global__ void launcher(int *p) {
  if (threadIdx.x == 0) {
    fill_dynamic<<<1, 64, 64 * sizeof(int)>>>(p);
    fill_module<<<1, 64>>>(p + 64);
  }
}
