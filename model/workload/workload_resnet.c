/*
 * workload_resnet.c - the layers of a ResNet bottleneck network (He et al., "Deep Residual Learning
 * for Image Recognition", CVPR 2016), laid out as torchvision's resnet.py v1.5 does it: the stride
 * of a stage's first block sits on its 3x3 conv, that block's shortcut is a 1x1 conv with the stride
 * plus a BN ("downsample"), convs have no bias, every BN has a weight and a bias (its running
 * statistics are buffers, not parameters).  Tensor names follow torchvision's state_dict.
 * MACs count the convs (k*k*cin*cout*Hout*Wout) and the fc (in*classes); BN, ReLU and pooling are
 * left out.
 */
#include "workload_build.h"

#include <stdio.h>

/* Output size of a k x k conv or pool with padding k/2 and the stride. */
static int out_size(int h, int k, int stride)
{
    return (h + 2 * (k / 2) - k) / stride + 1;
}

/* One conv + BN layer: layer `layer`, tensors CONV.weight, BN.weight, BN.bias; *h becomes the output size. */
static int conv_bn(mring_workload_t *w, const char *layer, const char *conv, const char *bn, int k, int cin,
                   int cout, int *h, int stride)
{
    char name[64];
    int ho = out_size(*h, k, stride);
    int64_t macs = (int64_t)k * k * cin * cout * ho * ho;
    *h = ho;
    if (mring_workload_add_layer(w, layer, (double)macs))
        return -1;
    snprintf(name, sizeof name, "%s.weight", conv);
    if (mring_workload_add_tensor(w, name, (int64_t)k * k * cin * cout))
        return -1;
    snprintf(name, sizeof name, "%s.weight", bn);
    if (mring_workload_add_tensor(w, name, cout))
        return -1;
    snprintf(name, sizeof name, "%s.bias", bn);
    return mring_workload_add_tensor(w, name, cout);
}

/* Bottleneck `block` of stage `stage` (1-based, torchvision's layerN): 1x1 cin->width, 3x3 width->width
 * with the stride, 1x1 width->4 width, and the downsample shortcut on a stage's first block. */
static int bottleneck(mring_workload_t *w, int stage, int block, int cin, int width, int stride, int *h)
{
    char p[32], layer[64], conv[64], bn[64];
    int hs = *h; /* the shortcut sees the block's input */
    snprintf(p, sizeof p, "layer%d.%d.", stage, block);
    for (int i = 1; i <= 3; i++) {
        int k = i == 2 ? 3 : 1;
        snprintf(layer, sizeof layer, "%sconv%d", p, i);
        snprintf(bn, sizeof bn, "%sbn%d", p, i);
        if (conv_bn(w, layer, layer, bn, k, i == 1 ? cin : width, i == 3 ? 4 * width : width, h,
                    i == 2 ? stride : 1))
            return -1;
    }
    if (block > 0)
        return 0;
    snprintf(layer, sizeof layer, "%sdownsample", p);
    snprintf(conv, sizeof conv, "%sdownsample.0", p);
    snprintf(bn, sizeof bn, "%sdownsample.1", p);
    return conv_bn(w, layer, conv, bn, 1, cin, 4 * width, &hs, stride);
}

int mring_workload_resnet(mring_workload_t *w, const int blocks[4], int classes, int image)
{
    int h = image, cin = 64;
    if (conv_bn(w, "conv1", "conv1", "bn1", 7, 3, 64, &h, 2))
        return -1;
    h = out_size(h, 3, 2); /* maxpool 3x3, stride 2, padding 1 */
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < blocks[s]; b++) {
            int width = 64 << s;
            if (bottleneck(w, s + 1, b, cin, width, s > 0 && b == 0 ? 2 : 1, &h))
                return -1;
            cin = 4 * width;
        }
    /* global average pooling, then fc: cin inputs (2048), classes outputs, with bias */
    if (mring_workload_add_layer(w, "fc", (double)cin * classes) ||
        mring_workload_add_tensor(w, "fc.weight", (int64_t)cin * classes))
        return -1;
    return mring_workload_add_tensor(w, "fc.bias", classes);
}
