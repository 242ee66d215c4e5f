"""Writes the *.mxnet-1.9.1.json files here with MXNet 1.9.1 itself.

Each is `mx.sym.load(<file>).tojson()`: what MXNet makes of a file after its
legacy upgrade (src/nnvm/legacy_json_util.cc), in the layout it writes. The
unit tests (test/unit/Graph) check that mxc's reader + writer give the same
bytes. multi_output.mxnet-1.9.1.json is built here (BatchNorm with
output_mean_var, Dropout, rrelu, MKL-DNN max pooling, SliceChannel, a
variable head).

  .venv-mxnet/bin/pip install mxnet==1.9.1 'numpy<1.24'
  cd test/Inputs/mxnet-files && ../../../.venv-mxnet/bin/python make_resaved.py
"""
import mxnet as mx

for name in ["save_000800", "vgg_like_model1", "mlp-symbol", "legacy_hidden"]:
    sym = mx.sym.load(name + ".json")
    with open(name + ".mxnet-1.9.1.json", "w") as f:
        f.write(sym.tojson())
    print(name, sym.list_arguments(), sym.list_auxiliary_states(),
          sym.list_outputs())

data = mx.sym.Variable("data")
bn = mx.sym.BatchNorm(data, name="bn", output_mean_var=True)
drop = mx.sym.Dropout(data, name="drop", p=0.5)
rrelu = mx.sym.LeakyReLU(data, act_type="rrelu", name="rr")
pool = mx.sym.Pooling(data, kernel=(2, 2), pool_type="max", name="pool")
split = mx.sym.SliceChannel(data, num_outputs=3, name="split")
group = mx.sym.Group([bn, drop, rrelu, pool, split[1], data, bn[0]])
with open("multi_output.mxnet-1.9.1.json", "w") as f:
    f.write(group.tojson())
print("multi_output", group.list_arguments(), group.list_auxiliary_states(),
      group.list_outputs())

# Control flow: _foreach (a free variable, an operator outside the body, a
# nested foreach), _while_loop, _cond, with their subgraphs.
data = mx.sym.var("data")
w = mx.sym.var("w")
fc = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
outs, states = mx.sym.contrib.foreach(
    lambda x, s: ([x + s[0] * w, fc],
                  [mx.sym.contrib.foreach(lambda y, t: (y, [t[0] + y]), x, [s[0]])[1][0]]),
    data, [mx.sym.var("s0")])
loop, final = mx.sym.contrib.while_loop(lambda i: i < 3, lambda i: ([i * w], [i + 1]),
                                        [mx.sym.var("i")], max_iterations=4)
picked = mx.sym.contrib.cond(mx.sym.sum(w) > 0, lambda: w * 2, lambda: w - 1)
group = mx.sym.Group(outs + states + loop + final + [picked])
with open("control_flow.mxnet-1.9.1.json", "w") as f:
    f.write(group.tojson())
print("control_flow", group.list_arguments(), group.list_outputs())
