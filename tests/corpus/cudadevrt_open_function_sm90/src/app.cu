// A kernel, and a device function no kernel calls that calls a function
// nothing defines: dead code, so the link succeeds, but the open reference
// is there when the system library is read.
extern __device__ int not_anywhere(int);
__device__ int unused_caller(int x) { return not_anywhere(x); }
__global__ void k_app(int *p) { p[0] = p[1] + 1; }
