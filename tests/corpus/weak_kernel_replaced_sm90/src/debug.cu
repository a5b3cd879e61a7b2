#include "axpy.h"
template __global__ void axpy<float>(float*, const float*, float);
