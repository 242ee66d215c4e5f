/* model_api_test.c - drives a model compiled with `mxc compile --emit shared`
 * through the C API of mxc/mxc_model.h (C11; test/python/test_aot.py builds
 * it against each library).
 *
 *   model_api_test INPUT.bin OUTPUT.bin [WEIGHTS]
 *
 * Reads the raw bytes of the first data input, runs the model twice (the two
 * outputs must be equal), writes the raw bytes of the first output, and
 * checks the API's errors: an unknown input name, a wrong byte count, a
 * missing input, an unknown output name, an unreadable weights file, an
 * out-of-range index. Prints "model_api_test: ok" and exits 0, or prints
 * what failed and exits 1. With WEIGHTS the model is created from that file.
 */
#include "mxc/mxc_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "model_api_test: FAILED %s: ", #cond);                   \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void *readFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: model_api_test INPUT.bin OUTPUT.bin [WEIGHTS]\n");
    return 2;
  }
  CHECK(mxc_model_api_version() == MXC_MODEL_API_VERSION, "version %d",
        mxc_model_api_version());

  /* A weights file that does not exist. */
  mxc_model *bad = mxc_model_create("/nonexistent/model.weights");
  CHECK(bad == NULL, "created from a missing weights file");
  CHECK(strstr(mxc_model_last_error(), "/nonexistent/model.weights") != NULL,
        "error '%s'", mxc_model_last_error());

  /* Devices: this model is compiled for the CPU. */
  const char *weights = argc > 3 ? argv[3] : NULL;
  bad = mxc_model_create_on(weights, "gpu(1)");
  CHECK(bad == NULL, "a CPU model created on gpu(1)");
  CHECK(strstr(mxc_model_last_error(), "compiled for the CPU: it cannot run on gpu(1)") != NULL,
        "error '%s'", mxc_model_last_error());
  bad = mxc_model_create_on(weights, "tpu(0)");
  CHECK(bad == NULL && strstr(mxc_model_last_error(), "unknown device 'tpu(0)'") != NULL,
        "error '%s'", mxc_model_last_error());
  mxc_model *on_cpu = mxc_model_create_on(weights, "cpu");
  CHECK(on_cpu != NULL, "create_on cpu: %s", mxc_model_last_error());
  mxc_model_destroy(on_cpu);

  mxc_model *m = mxc_model_create(weights);
  if (!m) {
    fprintf(stderr, "model_api_test: create failed: %s\n",
            mxc_model_last_error());
    return 1;
  }
  CHECK(mxc_model_num_inputs(m) >= 1, "%d inputs", mxc_model_num_inputs(m));
  CHECK(mxc_model_num_outputs(m) >= 1, "%d outputs", mxc_model_num_outputs(m));
  mxc_model_tensor_info in, out, none;
  CHECK(mxc_model_input_info(m, 0, &in) == 0, "%s", mxc_model_last_error());
  CHECK(mxc_model_output_info(m, 0, &out) == 0, "%s", mxc_model_last_error());
  CHECK(mxc_model_input_info(m, 99, &none) == -1, "index 99 accepted");
  CHECK(strstr(mxc_model_last_error(), "out of range") != NULL, "'%s'",
        mxc_model_last_error());
  printf("model %s target %s: input %s (%zu bytes), output %s (%zu bytes)\n",
         mxc_model_name(m), mxc_model_target(m), in.name, in.nbytes, out.name,
         out.nbytes);

  size_t size = 0;
  void *x = readFile(argv[1], &size);
  if (!x || size != in.nbytes) {
    fprintf(stderr, "model_api_test: %s: %zu bytes, the input needs %zu\n",
            argv[1], size, in.nbytes);
    return 1;
  }
  void *y1 = calloc(1, out.nbytes), *y2 = calloc(1, out.nbytes);

  /* Errors. */
  mxc_model_input wrongName = {"no_such_input", x, in.nbytes};
  mxc_model_output o1 = {out.name, y1, out.nbytes};
  CHECK(mxc_model_run(m, &wrongName, 1, &o1, 1) == -1, "unknown input ran");
  CHECK(strstr(mxc_model_last_error(), "no input named 'no_such_input'"),
        "'%s'", mxc_model_last_error());
  mxc_model_input wrongSize = {in.name, x, in.nbytes - 1};
  CHECK(mxc_model_run(m, &wrongSize, 1, &o1, 1) == -1, "short input ran");
  CHECK(strstr(mxc_model_last_error(), "bytes given"), "'%s'",
        mxc_model_last_error());
  if (mxc_model_num_inputs(m) == 1) {
    CHECK(mxc_model_run(m, NULL, 0, &o1, 1) == -1, "ran without inputs");
    CHECK(strstr(mxc_model_last_error(), "not given"), "'%s'",
          mxc_model_last_error());
  }
  mxc_model_input good = {in.name, x, in.nbytes};
  mxc_model_output wrongOut = {"no_such_output", y1, out.nbytes};
  CHECK(mxc_model_run(m, &good, 1, &wrongOut, 1) == -1, "unknown output ran");

  /* Two runs, equal results. */
  mxc_model_output o2 = {out.name, y2, out.nbytes};
  CHECK(mxc_model_run(m, &good, 1, &o1, 1) == 0, "%s", mxc_model_last_error());
  CHECK(mxc_model_run(m, &good, 1, &o2, 1) == 0, "%s", mxc_model_last_error());
  CHECK(memcmp(y1, y2, out.nbytes) == 0, "two runs differ");

  FILE *f = fopen(argv[2], "wb");
  CHECK(f && fwrite(y1, 1, out.nbytes, f) == out.nbytes, "writing %s",
        argv[2]);
  if (f)
    fclose(f);
  mxc_model_destroy(m);
  mxc_model_destroy(NULL);
  free(x);
  free(y1);
  free(y2);
  if (failures)
    return 1;
  printf("model_api_test: ok\n");
  return 0;
}
