// Out-of-line virtual methods (vtables for Square/Circle live here), a factory,
// and a device function-pointer table.
#include <new>
#include "shapes.h"

__device__ float Square::area() const { return s * s; }
__device__ float Circle::area() const { return 3.14159f * r * r; }

__device__ Shape *make_shape(int kind, float size, void *storage)
{
  if (kind == 0) return new (storage) Square(size);
  return new (storage) Circle(size);
}

__device__ __noinline__ float op_sq(float x) { return x * x; }
__device__ __noinline__ float op_half(float x) { return 0.5f * x; }
__device__ float (*op_table[2])(float) = { op_sq, op_half };

__device__ float apply_op(int which, float x)
{
  return op_table[which & 1](x);
}
