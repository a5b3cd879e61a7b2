// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
__device__ __noinline__ void d16(unsigned id) { asm volatile("bar.sync %0;" :: "r"(id)); }
__device__ __noinline__ void d1() { __syncthreads(); }
__device__ __noinline__ void mid(unsigned id) { d16(id); }
__device__ __noinline__ void viaptr() { __syncthreads(); }
typedef void (*fp)();
__device__ fp tab[1] = { viaptr };
__global__ void kA(int *p) { __syncthreads(); d16(p[0]); }
__global__ void kB(int *p) { mid(p[0]); }
__global__ void kC(int *p) { tab[p[0]](); }
__global__ void kD(int *p) { asm volatile("bar.sync 3;"); d1(); }
__global__ void kE(int *p) { p[0] = 1; }
