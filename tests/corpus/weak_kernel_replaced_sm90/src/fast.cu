#include "axpy.h"
template __global__ void axpy<float>(float*, const float*, float);
__global__ void launch_site(float* y) { y[0] = 1.f; }
