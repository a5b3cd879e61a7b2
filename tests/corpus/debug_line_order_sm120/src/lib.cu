// Second compile unit: ptxas writes combine's line sequence last, nvlink
// first (output symbol order).
__device__ int op0(int x) { return x + 1; }
__device__ int op1(int x) { return x * 2; }
__device__ int op2(int x) { return x - 3; }
__device__ int op3(int x) { return x ^ 5; }
typedef int (*fn_t)(int);
__constant__ fn_t ops[4] = {op0, op1, op2, op3};
__device__ int bias;
__device__ int combine(int x) { return x + bias; }
