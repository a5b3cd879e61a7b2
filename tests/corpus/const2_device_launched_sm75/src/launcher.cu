// A kernel with double constants of its own (bank 2 on sm_75-89) that
// launches a kernel with others from the device: each kernel's
// .nv.constant2 holds its own code's constants only.
extern __global__ void child(double *p);
__device__ __noinline__ double pmath(double x) { return pow(x, 1.7) + 3.14159265358979 * x; }
__global__ void parent(double *p) {
  p[1] = pmath(p[0]);
  if (threadIdx.x == 0) child<<<1, 64>>>(p);
}
