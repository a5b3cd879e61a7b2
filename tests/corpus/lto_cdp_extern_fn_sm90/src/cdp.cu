// Dynamic parallelism under -dlto (a partial link: the IR calls
// libcudadevrt) with external device functions: NVVM compiles the IR as
// separate compilation, so `info` stays visible and the kernel calls an
// internal clone `info$1`; `trace`, inlined, keeps a visible copy that
// dead-code elimination removes (its .debug_frame entry left zeroed).
#include <cstdio>
__device__ __noinline__ void info(int *p, int d) { p[threadIdx.x] = d; }
__device__ void trace(int depth) {
  if (threadIdx.x == 0) {
    char buf[32];
    for (int i = 0; i < depth; ++i) buf[i] = '|';
    buf[depth] = 0;
    printf("%s\n", buf);
  }
}
__global__ void kChild(int *p) { p[0] = 1; }
__global__ void kParent(int *p, int d) {
  info(p, d);
  trace(d);
  kChild<<<1, 1>>>(p);
}
void launch(int *p) { kParent<<<1, 1>>>(p, 3); }
