// k_main's EIATTR_EXTERNS (vprintf h g) loses h and g (defined elsewhere)
// and is rewritten in reading order, except that a record naming a kernel
// read before it comes right after it: f's table, before k_main's, lists
// kx, whose address f takes; g's record (malloc, a later input) keeps its
// place. Expected list: vprintf kx malloc (reading order alone: kx vprintf
// malloc). The real-world cdpAdvancedQuicksort on sm_75..sm_89 has such a
// record in ptxas's helper __cuda_sm70_shflsync_idx_p (the kernels that
// qsort_warp launches).
#include <cstdio>
extern __device__ int h(int);
extern __device__ int g(int);
__global__ void kx(int *p) { p[0] = 3; }
__device__ __noinline__ int f(int x) { void *q = (void *)kx; return x + (int)(long)q; }
__global__ void k_main(int *p)
{
    printf("%d\n", p[2]);
    p[0] = h(p[1]) + f(p[3]) + g(p[4]);
}
