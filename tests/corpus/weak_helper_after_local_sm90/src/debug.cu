// Built with -G: the same slow path, a weak global function here.
__global__ void scaleDebug(float* o, float d) { o[threadIdx.x] = o[threadIdx.x] / d; }
