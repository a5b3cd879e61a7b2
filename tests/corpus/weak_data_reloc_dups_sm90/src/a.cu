#include "h.h"
__device__ int ua(){ return *pa + *pb + (int)pad; }
