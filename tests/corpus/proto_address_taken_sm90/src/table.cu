// Defines twice() and takes its address in a table: the call graph lists
// it as address-taken, so nvlink drops its .nv.prototype record.
__device__ __noinline__ int twice(int v) { return 2 * v; }
__device__ int (*op)(int) = twice;
