// Under -G `sinf` is a function with its own `.nv.constant2.sinf`; the
// operations are reached only through a table of function pointers.
typedef float (*Op)(float);
__device__ float op_sin(float x) { return sinf(x); }
__device__ float op_twice(float x) { return 2.0f * x; }
__device__ Op ops[2] = {op_sin, op_twice};
