// helper() also prints.
#include <cstdio>
__device__ __noinline__ int helper(int x)
{
  printf("helper(%d)\n", x);
  return x * 2;
}
