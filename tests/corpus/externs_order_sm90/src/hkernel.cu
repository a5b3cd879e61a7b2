// h() takes the address of a kernel defined in another file.
extern __global__ void kx(int *p);
__global__ void kx(int *p) { p[0] = 3; }
__device__ __noinline__ int h(int x) { void *q = (void *)kx; return x + (int)(long)q; }
