// The host launches kA only; -kernels-used=kA names it too. With
// -preserve-relocs nvlink removes nothing: kB, onlyB and unused stay, kB
// named as -r names an unused kernel, and with no EIATTR_MIN_STACK_SIZE.
__device__ __noinline__ int used(int x) { return x * 2; }
__device__ __noinline__ int unused(int x) { return x * 3; }
__device__ __noinline__ int onlyB(int x) { return x * 5; }
__global__ void kA(int *o) { o[0] = used(o[1]); }
__global__ void kB(int *o) { o[0] = onlyB(o[1]); }
void run(int *p) { kA<<<1, 1>>>(p); }
