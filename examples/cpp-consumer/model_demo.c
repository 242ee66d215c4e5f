/* model_demo.c - a model compiled ahead of time (`mxc compile --emit obj`)
 * linked into a C program with the installed mxc::model_rt, through the
 * model API of mxc/mxc_model.h. Works for any float32 model: fills every
 * input with (i % 7) - 3, runs once, prints each output's sum:
 *
 *   output NAME: shape (2, 3) sum S
 *
 * Built when the example is configured with -DMXC_MODEL_OBJECT=model.o. */
#include "mxc/mxc_model.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_TENSORS 16

static void printShape(const mxc_model_tensor_info *t) {
  printf("(");
  for (int d = 0; d < t->ndim; ++d)
    printf(d ? ", %lld" : "%lld", (long long)t->shape[d]);
  printf(t->ndim == 1 ? ",)" : ")");
}

int main(void) {
  if (mxc_model_api_version() != MXC_MODEL_API_VERSION) {
    fprintf(stderr, "model_demo: API version %d, header %d\n",
            mxc_model_api_version(), MXC_MODEL_API_VERSION);
    return 1;
  }
  mxc_model *m = mxc_model_create(NULL);
  if (!m) {
    fprintf(stderr, "model_demo: %s\n", mxc_model_last_error());
    return 1;
  }
  int ni = mxc_model_num_inputs(m), no = mxc_model_num_outputs(m);
  if (ni > MAX_TENSORS || no > MAX_TENSORS) {
    fprintf(stderr, "model_demo: too many inputs or outputs\n");
    return 1;
  }
  printf("model_demo: model '%s' for %s, %d input(s), %d output(s)\n",
         mxc_model_name(m), mxc_model_target(m), ni, no);
  mxc_model_input in[MAX_TENSORS];
  mxc_model_output out[MAX_TENSORS];
  mxc_model_tensor_info outInfo[MAX_TENSORS];
  for (int i = 0; i < ni; ++i) {
    mxc_model_tensor_info t;
    if (mxc_model_input_info(m, i, &t) != 0 || t.dtype != MXC_MODEL_FLOAT32) {
      fprintf(stderr, "model_demo: input %d is not float32\n", i);
      return 1;
    }
    float *x = malloc(t.nbytes);
    for (size_t k = 0; k < t.nbytes / sizeof(float); ++k)
      x[k] = (float)((int)(k % 7) - 3);
    in[i].name = t.name;
    in[i].data = x;
    in[i].nbytes = t.nbytes;
  }
  for (int i = 0; i < no; ++i) {
    if (mxc_model_output_info(m, i, &outInfo[i]) != 0 ||
        outInfo[i].dtype != MXC_MODEL_FLOAT32) {
      fprintf(stderr, "model_demo: output %d is not float32\n", i);
      return 1;
    }
    out[i].name = outInfo[i].name;
    out[i].data = malloc(outInfo[i].nbytes);
    out[i].nbytes = outInfo[i].nbytes;
  }
  if (mxc_model_run(m, in, (size_t)ni, out, (size_t)no) != 0) {
    fprintf(stderr, "model_demo: %s\n", mxc_model_last_error());
    return 1;
  }
  for (int i = 0; i < no; ++i) {
    double sum = 0;
    const float *y = out[i].data;
    for (size_t k = 0; k < out[i].nbytes / sizeof(float); ++k)
      sum += y[k];
    printf("output %s: shape ", out[i].name);
    printShape(&outInfo[i]);
    printf(" sum %g\n", sum);
    free(out[i].data);
  }
  for (int i = 0; i < ni; ++i)
    free((void *)in[i].data);
  mxc_model_destroy(m);
  return 0;
}
