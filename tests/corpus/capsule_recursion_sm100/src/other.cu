// A second object: parity.o is now linked alone by the finalizer.
__device__ int twice(int x) { return 2 * x; }
__global__ void doubler(int* p) { p[threadIdx.x] = twice(p[threadIdx.x]); }
