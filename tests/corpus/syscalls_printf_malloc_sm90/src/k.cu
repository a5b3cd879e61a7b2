// printf/malloc/free/__assertfail are resolved by the driver, not by nvlink:
// vprintf, malloc, free and __assertfail stay undefined in the output.
#include <cstdio>
#include <cassert>
extern __device__ int helper(int);

__global__ void k_sys(int n)
{
  int *p = (int *)malloc(n * sizeof(int));
  if (p) {
    p[0] = helper(n);
    printf("thread %d value %d\n", threadIdx.x, p[0]);
    assert(p[0] != 12345);
    free(p);
  }
}
