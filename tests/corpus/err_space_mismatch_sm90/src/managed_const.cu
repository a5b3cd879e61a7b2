// The counter declared as constant memory: both its space and its managed
// attribute differ from the definition.
extern __constant__ int hits;
__global__ void peek(int* o) { o[0] = hits; }
