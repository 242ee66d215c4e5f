"""PyTorch eager's side of scripts/gpu-check.sh's training benchmark: the
pre-activation ResNet-50 of MXNet's resnet.py (tools/zoo/mxnet_zoo.resnet:
the graph mxc compiles), float32 NCHW, TF32 off (MXNet's f32 semantics, as
mxc's cuBLAS / cuDNN calls), a step = forward + cross-entropy (SoftmaxOutput's
gradient) + backward, no optimizer update (bench/gpu/train_step.cc times mxc
the same way); the median of 7 batches of REPEAT steps after 3 untimed ones.

    python3 bench/gpu/torch_train_step.py [BATCH] [REPEAT]

Prints one line as train_step does, or 'PyTorch: not available (...)' and
exits 0 where torch or a GPU is missing (the report says so).
"""
import statistics
import sys
import time


def main(batch=64, repeat=3):
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        if not torch.cuda.is_available():
            print("PyTorch: not available (torch %s sees no GPU)" % torch.__version__)
            return 0
    except ImportError as e:
        print("PyTorch: not available (%s)" % e)
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def bn(c):
        return nn.BatchNorm2d(c, eps=2e-5, momentum=0.1)

    class Unit(nn.Module):
        """resnet.py's bottleneck unit: BN-ReLU before each convolution."""

        def __init__(self, cin, cout, stride, dim_match):
            super().__init__()
            mid = cout // 4
            self.bn1, self.bn2, self.bn3 = bn(cin), bn(mid), bn(mid)
            self.conv1 = nn.Conv2d(cin, mid, 1, bias=False)
            self.conv2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False)
            self.conv3 = nn.Conv2d(mid, cout, 1, bias=False)
            self.sc = None if dim_match else nn.Conv2d(cin, cout, 1, stride, bias=False)

        def forward(self, x):
            a1 = F.relu(self.bn1(x))
            y = self.conv1(a1)
            y = self.conv2(F.relu(self.bn2(y)))
            y = self.conv3(F.relu(self.bn3(y)))
            return y + (x if self.sc is None else self.sc(a1))

    class ResNet50(nn.Module):
        def __init__(self, classes=1000):
            super().__init__()
            self.bn_data = bn(3)
            self.conv0 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn0 = bn(64)
            units, cin = [], 64
            for i, (count, cout) in enumerate(zip((3, 4, 6, 3), (256, 512, 1024, 2048))):
                for j in range(count):
                    units.append(Unit(cin, cout, (1 if i == 0 else 2) if j == 0 else 1, j > 0))
                    cin = cout
            self.units = nn.Sequential(*units)
            self.bn1 = bn(2048)
            self.fc1 = nn.Linear(2048, classes)

        def forward(self, x):
            x = F.relu(self.bn0(self.conv0(self.bn_data(x))))
            x = F.max_pool2d(x, 3, 2, 1)
            x = F.relu(self.bn1(self.units(x)))
            return self.fc1(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    dev = torch.device("cuda:0")
    net = ResNet50().to(dev).train()
    x = torch.randn(batch, 3, 224, 224, device=dev)
    y = torch.arange(batch, device=dev) % 10

    def step():
        for p in net.parameters():
            p.grad = None
        F.cross_entropy(net(x), y, reduction="sum").backward()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(repeat):
            step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / repeat)
    s = statistics.median(times)
    print("PyTorch %s eager training step (forward + backward), batch %d: median %.2f ms "
          "(min %.2f, max %.2f), %.0f images/s" % (torch.__version__, batch, s * 1e3,
                                                   min(times) * 1e3, max(times) * 1e3, batch / s))
    return 0


if __name__ == "__main__":
    sys.exit(main(*[int(a) for a in sys.argv[1:3]]))
