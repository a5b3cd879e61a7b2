// Built without -G: ptxas makes the division slow path a local function.
__global__ void scalePlain(float* o, float d) { o[threadIdx.x] = o[threadIdx.x] / d; }
