// Function pointers of several prototypes and an indirect call through each:
// nvlink names the prototype strings in the order the call graph's
// address-taken list, its indirect call sites, then .nv.prototype's records
// refer to them, not in string-table order.
#include <cstdio>
__device__ int add3(int a, int b, int c) { return a + b + c; }
__device__ int sub3(int a, int b, int c) { return a - b - c; }
__device__ float twice(float a) { return a * 2; }
__device__ long mix(long a, char b, short c) { return a + b + c; }
typedef int (*F3)(int, int, int);
typedef float (*F1)(float);
typedef long (*FM)(long, char, short);
__device__ F3 table3[2] = {add3, sub3};
__device__ F1 table1 = twice;
__device__ FM tablem = mix;
extern __device__ double ext_fn(double, char);
__global__ void k_calls(int *o, float *q, double *r, long *l)
{
  printf("x %d\n", o[0]);
  r[0] = ext_fn(r[1], 'c');
  o[0] = table3[o[1]](o[2], o[3], o[4]);
  q[0] = table1(q[1]);
  l[0] = tablem(l[1], 2, 3);
}
