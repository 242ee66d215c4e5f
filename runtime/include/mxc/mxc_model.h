/* mxc_model.h - the C API of a model compiled ahead of time by `mxc compile`.
 *
 * `mxc compile --emit shared` writes a shared library exporting these
 * functions; `--emit obj` writes an object file that, linked with
 * libmxc_model_rt.a (and OpenBLAS), provides them to an application;
 * `--emit exe` links them with a command-line main (docs/aot.md).
 * One compiled model per library / executable.
 *
 *   mxc_model *m = mxc_model_create(NULL);     // embedded or default weights
 *   if (!m) { fprintf(stderr, "%s\n", mxc_model_last_error()); ... }
 *   mxc_model_input in = {"data", pixels, sizeof pixels};
 *   mxc_model_output out = {"softmax_output", probs, sizeof probs};
 *   if (mxc_model_run(m, &in, 1, &out, 1) != 0) ...
 *   mxc_model_destroy(m);
 *
 * Inputs are the graph's data inputs (MXNet variables that are neither
 * parameters nor auxiliary states); parameters come from the weights. All
 * arrays are dense, C order, little endian, of the shapes and dtypes fixed at
 * compile time (mxc_model_input_info / mxc_model_output_info).
 *
 * Errors: functions returning int give 0 on success and -1 on failure;
 * pointer-returning functions give NULL. The message of the last failure on
 * the calling thread is mxc_model_last_error().
 *
 * Threads: a model runs one call at a time (it owns one scratch arena); use
 * one model per thread, or serialise calls. Distinct models are independent.
 */
#ifndef MXC_MODEL_H
#define MXC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Incremented on every incompatible change of this header. */
#define MXC_MODEL_API_VERSION 1

#if defined(__GNUC__)
#define MXC_MODEL_EXPORT __attribute__((visibility("default")))
#else
#define MXC_MODEL_EXPORT
#endif

typedef struct mxc_model mxc_model;

/* MXNet's dtype flags. */
typedef enum {
  MXC_MODEL_FLOAT32 = 0,
  MXC_MODEL_FLOAT64 = 1,
  MXC_MODEL_FLOAT16 = 2,
  MXC_MODEL_UINT8 = 3,
  MXC_MODEL_INT32 = 4,
  MXC_MODEL_INT8 = 5,
  MXC_MODEL_INT64 = 6,
  MXC_MODEL_BOOL = 7,
  MXC_MODEL_BFLOAT16 = 12
} mxc_model_dtype;

/* One input or output. Pointers are owned by the model (or the library) and
 * valid while the model exists. */
typedef struct {
  const char *name;
  int dtype;            /* mxc_model_dtype */
  int ndim;
  const int64_t *shape; /* ndim entries */
  size_t nbytes;        /* product(shape) * element size */
} mxc_model_tensor_info;

typedef struct {
  const char *name;
  const void *data;
  size_t nbytes; /* must equal the input's nbytes */
} mxc_model_input;

typedef struct {
  const char *name;
  void *data;
  size_t nbytes; /* must equal the output's nbytes */
} mxc_model_output;

/* MXC_MODEL_API_VERSION of the library. */
MXC_MODEL_EXPORT int mxc_model_api_version(void);

/* Creates a model. `weights_path` NULL: the weights embedded at compile time
 * (--weights embed), else the weights file written beside the output
 * (--weights external), looked up in the directory of the library or
 * executable. Otherwise the path of such a weights file. The file must be the
 * one written for this model (checked: size and checksum). */
MXC_MODEL_EXPORT mxc_model *mxc_model_create(const char *weights_path);

/* mxc_model_create on a device: NULL or "" for the one compiled for (cpu(0),
 * or gpu(0) for `--target cuda`), else "gpu(N)" / "gpu:N" / "gpu" for a model
 * compiled for the GPU, "cpu" / "cpu(0)" for one compiled for the CPU. A
 * device of the other kind, or one the machine does not have, fails (NULL). */
MXC_MODEL_EXPORT mxc_model *mxc_model_create_on(const char *weights_path,
                                                const char *device);

/* NULL is accepted. */
MXC_MODEL_EXPORT void mxc_model_destroy(mxc_model *model);

/* Message of the last failure on this thread ("" if none). Owned by the
 * library; valid until the next failing call on this thread. */
MXC_MODEL_EXPORT const char *mxc_model_last_error(void);

/* Name given at compile time (the symbol file's name without -symbol.json),
 * and the target triple the code was compiled for. */
MXC_MODEL_EXPORT const char *mxc_model_name(const mxc_model *model);
MXC_MODEL_EXPORT const char *mxc_model_target(const mxc_model *model);

MXC_MODEL_EXPORT int mxc_model_num_inputs(const mxc_model *model);
MXC_MODEL_EXPORT int mxc_model_num_outputs(const mxc_model *model);
MXC_MODEL_EXPORT int mxc_model_input_info(const mxc_model *model, int index,
                                          mxc_model_tensor_info *info);
MXC_MODEL_EXPORT int mxc_model_output_info(const mxc_model *model, int index,
                                           mxc_model_tensor_info *info);

/* One forward pass (inference). Every input must be given exactly once, by
 * name; `outputs` may name any subset of the outputs (the others are
 * computed and dropped). Input and output buffers must not overlap. */
MXC_MODEL_EXPORT int mxc_model_run(mxc_model *model,
                                   const mxc_model_input *inputs,
                                   size_t num_inputs,
                                   const mxc_model_output *outputs,
                                   size_t num_outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MXC_MODEL_H */
