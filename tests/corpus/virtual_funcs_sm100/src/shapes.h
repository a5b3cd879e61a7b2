// Polymorphic classes shared by both translation units.
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual int sides() const { return 0; }
  __device__ virtual ~Shape() {}
};

struct Square : Shape {
  float s;
  __device__ explicit Square(float s_) : s(s_) {}
  __device__ float area() const override;
  __device__ int sides() const override { return 4; }
};

struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ float area() const override;
};

__device__ Shape *make_shape(int kind, float size, void *storage);
__device__ float apply_op(int which, float x);
