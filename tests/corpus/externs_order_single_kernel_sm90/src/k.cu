// k_own's EIATTR_EXTERNS (malloc, g) loses g, defined in g.cu, whose own
// record brings vprintf. With no other kernel in the output the rewritten
// record (vprintf malloc, reading order) leaves its place and ends the
// table; had the callees brought nothing it would stay in place
// (syscalls_printf_malloc_sm90).
extern __device__ int g(int);
__global__ void k_own(int *p) { int *q = (int *)malloc(16); p[0] = g(p[1]) + (int)(long)q; }
