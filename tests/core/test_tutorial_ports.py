"""Paddle 2.x's official tutorials, ported with ``import core as paddle`` and run on tiny
synthetic data for a few steps: DCGAN, seq2seq with attention and beam search, U-Net
segmentation (the Oxford-pets PetNet and a concat U-Net), skip-gram word2vec with sparse
embeddings, a VAE, and the high-level API (``paddle.Model``, callbacks, schedulers, save/load,
``Accuracy(topk=...)``). Each port keeps the tutorial's idioms and API spelling; where one
needed a change, core was fixed (the tests of those fixes follow the ports).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import core as paddle
import core.nn as nn
import core.nn.functional as F
import core.nn.initializer as I  # noqa: N812 - the tutorials' alias
from core.static import InputSpec


def _decreased(losses, factor=1.0):
    losses = [float(v) for v in losses]
    assert all(np.isfinite(losses)), losses
    k = max(1, len(losses) // 4)
    assert np.mean(losses[-k:]) < factor * np.mean(losses[:k]), losses


# ----- (1) DCGAN: Conv2DTranspose, BatchNorm2D, LeakyReLU, Tanh, BCELoss, two optimizers -------

conv_initializer = paddle.nn.initializer.Normal(mean=0.0, std=0.02)
bn_initializer = paddle.nn.initializer.Normal(mean=1.0, std=0.02)


class Discriminator(nn.Layer):
    def __init__(self,):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2D(1, 8, 4, 2, 1, bias_attr=False, weight_attr=paddle.ParamAttr(
                name="d_conv_weight_1_", initializer=conv_initializer)),
            nn.LeakyReLU(0.2),
            nn.Conv2D(8, 16, 4, 2, 1, bias_attr=False, weight_attr=paddle.ParamAttr(
                name="d_conv_weight_2_", initializer=conv_initializer)),
            nn.BatchNorm2D(16, weight_attr=paddle.ParamAttr(
                name="d_2_bn_weight_", initializer=bn_initializer), momentum=0.8),
            nn.LeakyReLU(0.2),
            nn.Conv2D(16, 1, 4, 1, 0, bias_attr=False, weight_attr=paddle.ParamAttr(
                name="d_conv_weight_5_", initializer=conv_initializer)),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.conv(x)


class Generator(nn.Layer):
    def __init__(self,):
        super().__init__()
        self.gen = nn.Sequential(
            nn.Conv2DTranspose(16, 16, 4, 1, 0, bias_attr=False, weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_1_", initializer=conv_initializer)),
            nn.BatchNorm2D(16, weight_attr=paddle.ParamAttr(
                name="g_2_bn_weight_", initializer=bn_initializer), momentum=0.8),
            nn.ReLU(True),
            nn.Conv2DTranspose(16, 8, 4, 2, 1, bias_attr=False, weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_2_", initializer=conv_initializer)),
            nn.BatchNorm2D(8, weight_attr=paddle.ParamAttr(
                name="g_3_bn_weight_", initializer=bn_initializer), momentum=0.8),
            nn.ReLU(True),
            nn.Conv2DTranspose(8, 1, 4, 2, 1, bias_attr=False, weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_5_", initializer=conv_initializer)),
            nn.Tanh(),
        )

    def forward(self, x):
        return self.gen(x)


def weights_init(m):
    classname = m.__class__.__name__
    if hasattr(m, 'weight') and classname.find('Conv') != -1:
        conv_initializer(m.weight)
    elif classname.find('BatchNorm') != -1:
        bn_initializer(m.weight)


def test_dcgan(tmp_path):
    paddle.seed(0)
    netD, netG = Discriminator(), Generator()
    netG.apply(weights_init)
    data_all = np.tanh(np.random.RandomState(0).randn(64, 1, 16, 16)).astype('float32')

    class FaceDataset(paddle.io.Dataset):
        def __getitem__(self, i):
            return data_all[i], np.array([1], dtype='int64')

        def __len__(self):
            return len(data_all)

    train_loader = paddle.io.DataLoader(FaceDataset(), batch_size=16, shuffle=True,
                                        drop_last=True)
    loss = nn.BCELoss()
    fixed_noise = paddle.randn([4, 16, 1, 1], dtype='float32')
    real_label, fake_label = 1., 0.
    optimizerD = paddle.optimizer.Adam(parameters=netD.parameters(), learning_rate=0.0002,
                                       beta1=0.5, beta2=0.999)
    optimizerG = paddle.optimizer.Adam(parameters=netG.parameters(), learning_rate=0.0002,
                                       beta1=0.5, beta2=0.999)
    losses = [[], []]
    for _pass_id in range(2):
        for _batch_id, (data, _target) in enumerate(train_loader):
            optimizerD.clear_grad()
            real_img = data
            bs_size = real_img.shape[0]
            label = paddle.full((bs_size, 1, 1, 1), real_label, dtype='float32')
            real_out = netD(real_img)
            errD_real = loss(real_out, label)
            errD_real.backward()
            noise = paddle.randn([bs_size, 16, 1, 1], 'float32')
            fake_img = netG(noise)
            label = paddle.full((bs_size, 1, 1, 1), fake_label, dtype=real_img.dtype)
            fake_out = netD(fake_img.detach())
            errD_fake = loss(fake_out, label)
            errD_fake.backward()
            optimizerD.step()
            optimizerD.clear_grad()
            errD = errD_real + errD_fake
            losses[0].append(errD.numpy())

            optimizerG.clear_grad()
            noise = paddle.randn([bs_size, 16, 1, 1], 'float32')
            fake = netG(noise)
            label = paddle.full((bs_size, 1, 1, 1), real_label, dtype=np.float32,)
            output = netD(fake)
            errG = loss(output, label)
            errG.backward()
            optimizerG.step()
            optimizerG.clear_grad()
            losses[1].append(errG.numpy())
    _decreased(losses[0])
    assert all(np.isfinite(losses[1]))
    netG.eval()
    with paddle.no_grad():
        generated_image = netG(fixed_noise).numpy()
    assert generated_image.shape == (4, 1, 16, 16)
    assert np.abs(generated_image).max() <= 1.0
    paddle.save(netG.state_dict(), str(tmp_path / "generator.params"))
    again = Generator()
    again.set_state_dict(paddle.load(str(tmp_path / "generator.params")))
    again.eval()
    with paddle.no_grad():
        np.testing.assert_allclose(again(fixed_noise).numpy(), generated_image, rtol=1e-6)


# ----- (2) seq2seq with attention (PaddleNLP's seq2seq_attn) and beam search -------------------

class CrossEntropyCriterion(nn.Layer):
    def __init__(self):
        super().__init__()

    def forward(self, predict, label, trg_mask):
        cost = F.softmax_with_cross_entropy(logits=predict, label=label, soft_label=False)
        cost = paddle.squeeze(cost, axis=[2])
        masked_cost = cost * trg_mask
        batch_mean_cost = paddle.mean(masked_cost, axis=[0])
        seq_cost = paddle.sum(batch_mean_cost)
        return seq_cost


class Seq2SeqEncoder(nn.Layer):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers, dropout_prob=0.,
                 init_scale=0.1):
        super().__init__()
        self.embedder = nn.Embedding(vocab_size, embed_dim, weight_attr=paddle.ParamAttr(
            initializer=I.Uniform(low=-init_scale, high=init_scale)))
        self.lstm = nn.LSTM(input_size=embed_dim, hidden_size=hidden_size, num_layers=num_layers,
                            direction="forward", dropout=dropout_prob if num_layers > 1 else 0.)

    def forward(self, sequence, sequence_length):
        inputs = self.embedder(sequence)
        encoder_output, encoder_state = self.lstm(inputs, sequence_length=sequence_length)
        return encoder_output, encoder_state


class AttentionLayer(nn.Layer):
    def __init__(self, hidden_size, bias=False, init_scale=0.1):
        super().__init__()
        attr = paddle.ParamAttr(initializer=I.Uniform(low=-init_scale, high=init_scale))
        self.input_proj = nn.Linear(hidden_size, hidden_size, weight_attr=attr, bias_attr=bias)
        self.output_proj = nn.Linear(hidden_size + hidden_size, hidden_size, weight_attr=attr,
                                     bias_attr=bias)

    def forward(self, hidden, encoder_output, encoder_padding_mask):
        encoder_output = self.input_proj(encoder_output)
        attn_scores = paddle.matmul(paddle.unsqueeze(hidden, [1]), encoder_output,
                                    transpose_y=True)
        if encoder_padding_mask is not None:
            attn_scores = paddle.add(attn_scores, encoder_padding_mask)
        attn_scores = F.softmax(attn_scores)
        attn_out = paddle.squeeze(paddle.matmul(attn_scores, encoder_output), [1])
        attn_out = paddle.concat([attn_out, hidden], 1)
        attn_out = self.output_proj(attn_out)
        return attn_out


class Seq2SeqDecoderCell(nn.RNNCellBase):
    def __init__(self, num_layers, input_size, hidden_size, dropout_prob=0.):
        super().__init__()
        self.dropout = nn.Dropout(dropout_prob)
        self.lstm_cells = nn.LayerList([nn.LSTMCell(
            input_size=input_size + hidden_size if i == 0 else hidden_size,
            hidden_size=hidden_size) for i in range(num_layers)])
        self.attention_layer = AttentionLayer(hidden_size)

    def forward(self, step_input, states, encoder_output, encoder_padding_mask=None):
        lstm_states, input_feed = states
        new_lstm_states = []
        step_input = paddle.concat([step_input, input_feed], 1)
        for i, lstm_cell in enumerate(self.lstm_cells):
            out, new_lstm_state = lstm_cell(step_input, lstm_states[i])
            step_input = self.dropout(out)
            new_lstm_states.append(new_lstm_state)
        out = self.attention_layer(step_input, encoder_output, encoder_padding_mask)
        return out, [new_lstm_states, out]


class Seq2SeqDecoder(nn.Layer):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers, dropout_prob=0.,
                 init_scale=0.1):
        super().__init__()
        attr = paddle.ParamAttr(initializer=I.Uniform(low=-init_scale, high=init_scale))
        self.embedder = nn.Embedding(vocab_size, embed_dim, weight_attr=attr)
        self.lstm_attention = nn.RNN(Seq2SeqDecoderCell(num_layers, embed_dim, hidden_size,
                                                        dropout_prob),
                                     is_reverse=False, time_major=False)
        self.output_layer = nn.Linear(hidden_size, vocab_size, weight_attr=attr, bias_attr=False)

    def forward(self, trg, decoder_initial_states, encoder_output, encoder_padding_mask):
        inputs = self.embedder(trg)
        decoder_output, _ = self.lstm_attention(
            inputs, initial_states=decoder_initial_states, encoder_output=encoder_output,
            encoder_padding_mask=encoder_padding_mask)
        predict = self.output_layer(decoder_output)
        return predict


class Seq2SeqAttnModel(nn.Layer):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers, eos_id=1,
                 dropout_prob=0., init_scale=0.1):
        super().__init__()
        self.hidden_size = hidden_size
        self.eos_id = eos_id
        self.num_layers = num_layers
        self.INF = 1e9
        self.encoder = Seq2SeqEncoder(vocab_size, embed_dim, hidden_size, num_layers,
                                      dropout_prob, init_scale)
        self.decoder = Seq2SeqDecoder(vocab_size, embed_dim, hidden_size, num_layers,
                                      dropout_prob, init_scale)

    def _initial_states_and_mask(self, src, src_length):
        encoder_output, encoder_final_state = self.encoder(src, src_length)
        encoder_final_states = [(encoder_final_state[0][i], encoder_final_state[1][i])
                                for i in range(self.num_layers)]
        decoder_initial_states = [
            encoder_final_states,
            self.decoder.lstm_attention.cell.get_initial_states(batch_ref=encoder_output,
                                                                shape=[self.hidden_size])]
        src_mask = (src != self.eos_id).astype(paddle.get_default_dtype())
        encoder_padding_mask = (src_mask - 1.0) * self.INF
        encoder_padding_mask = paddle.unsqueeze(encoder_padding_mask, [1])
        return encoder_output, decoder_initial_states, encoder_padding_mask

    def forward(self, src, src_length, trg):
        encoder_output, decoder_initial_states, encoder_padding_mask = \
            self._initial_states_and_mask(src, src_length)
        return self.decoder(trg, decoder_initial_states, encoder_output, encoder_padding_mask)


class Seq2SeqAttnInferModel(Seq2SeqAttnModel):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers, bos_id=0, eos_id=1,
                 beam_size=4, max_out_len=8):
        self.bos_id = bos_id
        self.beam_size = beam_size
        self.max_out_len = max_out_len
        self.num_layers = num_layers
        super().__init__(vocab_size, embed_dim, hidden_size,
                                                    num_layers, eos_id)
        self.beam_search_decoder = nn.BeamSearchDecoder(
            self.decoder.lstm_attention.cell, start_token=bos_id, end_token=eos_id,
            beam_size=beam_size, embedding_fn=self.decoder.embedder,
            output_fn=self.decoder.output_layer)

    def forward(self, src, src_length):
        encoder_output, decoder_initial_states, encoder_padding_mask = \
            self._initial_states_and_mask(src, src_length)
        encoder_output = nn.BeamSearchDecoder.tile_beam_merge_with_batch(encoder_output,
                                                                         self.beam_size)
        encoder_padding_mask = nn.BeamSearchDecoder.tile_beam_merge_with_batch(
            encoder_padding_mask, self.beam_size)
        seq_output, _ = nn.dynamic_decode(
            decoder=self.beam_search_decoder, inits=decoder_initial_states,
            max_step_num=self.max_out_len, encoder_output=encoder_output,
            encoder_padding_mask=encoder_padding_mask)
        return seq_output


def test_seq2seq_attention_with_beam_search():
    paddle.seed(1)
    V, E, H, L, B, S = 12, 8, 16, 2, 8, 6
    rs = np.random.RandomState(0)
    src = rs.randint(2, V, size=(B, S)).astype('int64')
    src_len = rs.randint(3, S + 1, size=(B,)).astype('int64')
    for b in range(B):
        src[b, src_len[b]:] = 1  # eos as padding
    trg = np.concatenate([np.zeros((B, 1), 'int64'), src[:, :-1]], 1)  # copy task, bos = 0
    label = src[:, :, None]
    trg_length = paddle.to_tensor(src_len)
    trg_mask = paddle.cast(F.sequence_mask(trg_length, maxlen=S), dtype='float32')

    model = Seq2SeqAttnModel(V, E, H, L)
    criterion = CrossEntropyCriterion()
    clip = paddle.nn.ClipGradByGlobalNorm(clip_norm=5.0)
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters(),
                                grad_clip=clip)
    losses = []
    for _step in range(12):
        predict = model(paddle.to_tensor(src), paddle.to_tensor(src_len), paddle.to_tensor(trg))
        loss = criterion(predict, paddle.to_tensor(label), trg_mask)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    _decreased(losses, 0.95)

    beam_size, max_out_len = 3, 7
    infer = Seq2SeqAttnInferModel(V, E, H, L, beam_size=beam_size, max_out_len=max_out_len)
    infer.set_state_dict(model.state_dict())
    infer.eval()
    with paddle.no_grad():
        out = infer(paddle.to_tensor(src), paddle.to_tensor(src_len))
    assert out.dtype == paddle.int64
    assert out.shape[0] == B and out.shape[2] == beam_size
    assert 1 <= out.shape[1] <= max_out_len + 1
    ids = out.numpy()
    assert ids.min() >= 0 and ids.max() < V


def test_seq2seq_tutorial_greedy_decoder_loop():
    """Paddle's English-Chinese attention tutorial: an LSTM encoder, a hand-written attention
    decoder stepped in Python, ``loss = paddle.zeros([1])`` summed per step, greedy decoding."""
    paddle.seed(2)
    np.random.seed(2)
    MAX_LEN, en_vocab_size, cn_vocab_size = 5, 15, 13
    embedding_size, hidden_size, batch_size = 8, 16, 4

    class Encoder(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = paddle.nn.Embedding(en_vocab_size, embedding_size,)
            self.lstm = paddle.nn.LSTM(input_size=embedding_size, hidden_size=hidden_size,
                                       num_layers=1)

        def forward(self, x):
            x = self.emb(x)
            x, (_, _) = self.lstm(x)
            return x

    class AttentionDecoder(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = paddle.nn.Embedding(cn_vocab_size, embedding_size)
            self.lstm = paddle.nn.LSTM(input_size=embedding_size + hidden_size,
                                       hidden_size=hidden_size)
            self.attention_linear1 = paddle.nn.Linear(hidden_size * 2, hidden_size)
            self.attention_linear2 = paddle.nn.Linear(hidden_size, 1)
            self.outlinear = paddle.nn.Linear(hidden_size, cn_vocab_size)

        def forward(self, x, previous_hidden, previous_cell, encoder_outputs):
            x = self.emb(x)
            attention_inputs = paddle.concat(
                (encoder_outputs, paddle.tile(previous_hidden, repeat_times=[1, MAX_LEN + 1, 1])),
                axis=-1)
            attention_hidden = self.attention_linear1(attention_inputs)
            attention_hidden = F.tanh(attention_hidden)
            attention_logits = self.attention_linear2(attention_hidden)
            attention_logits = paddle.squeeze(attention_logits)
            attention_weights = F.softmax(attention_logits)
            attention_weights = paddle.expand_as(paddle.unsqueeze(attention_weights, -1),
                                                 encoder_outputs)
            context_vector = paddle.multiply(encoder_outputs, attention_weights)
            context_vector = paddle.sum(context_vector, 1)
            context_vector = paddle.unsqueeze(context_vector, 1)
            lstm_input = paddle.concat((x, context_vector), axis=-1)
            previous_hidden = paddle.transpose(previous_hidden, [1, 0, 2])
            previous_cell = paddle.transpose(previous_cell, [1, 0, 2])
            x, (hidden, cell) = self.lstm(lstm_input, (previous_hidden, previous_cell))
            hidden = paddle.transpose(hidden, [1, 0, 2])
            cell = paddle.transpose(cell, [1, 0, 2])
            output = self.outlinear(hidden)
            output = paddle.squeeze(output)
            return output, (hidden, cell)

    rs = np.random.RandomState(0)
    N = 16
    train_en_sents = rs.randint(3, en_vocab_size, size=(N, MAX_LEN + 1)).astype('int64')
    target = train_en_sents % cn_vocab_size
    train_cn_sents = np.concatenate([np.ones((N, 1), 'int64'), target], 1)
    train_cn_label_sents = np.concatenate([target, np.full((N, 1), 2, 'int64')], 1)
    encoder, atten_decoder = Encoder(), AttentionDecoder()
    opt = paddle.optimizer.Adam(learning_rate=0.01,
                                parameters=encoder.parameters() + atten_decoder.parameters())
    history = []
    for _epoch in range(4):
        perm = np.random.permutation(len(train_en_sents))
        en_shuffled, cn_shuffled = train_en_sents[perm], train_cn_sents[perm]
        cn_label_shuffled = train_cn_label_sents[perm]
        for iteration in range(en_shuffled.shape[0] // batch_size):
            rows = slice(batch_size * iteration, batch_size * (iteration + 1))
            en_repr = encoder(paddle.to_tensor(en_shuffled[rows]))
            x_cn_data, x_cn_label_data = cn_shuffled[rows], cn_label_shuffled[rows]
            hidden = paddle.zeros([batch_size, 1, hidden_size])
            cell = paddle.zeros([batch_size, 1, hidden_size])
            loss = paddle.zeros([1])
            for i in range(MAX_LEN + 2):
                cn_word = paddle.to_tensor(x_cn_data[:, i:i + 1])
                cn_word_label = paddle.to_tensor(x_cn_label_data[:, i])
                logits, (hidden, cell) = atten_decoder(cn_word, hidden, cell, en_repr)
                step_loss = F.cross_entropy(logits, cn_word_label)
                avg_step_loss = paddle.mean(step_loss)
                loss += avg_step_loss
            loss = loss / (MAX_LEN + 2)
            loss.backward()
            opt.step()
            opt.clear_grad()
            history.append(loss.numpy().item())
    _decreased(history)

    encoder.eval()
    atten_decoder.eval()
    n = 4
    en_repr = encoder(paddle.to_tensor(train_en_sents[:n]))
    word = paddle.to_tensor(np.array([[1]] * n))
    hidden = paddle.zeros([n, 1, hidden_size])
    cell = paddle.zeros([n, 1, hidden_size])
    decoded_sent = []
    for _i in range(MAX_LEN + 2):
        logits, (hidden, cell) = atten_decoder(word, hidden, cell, en_repr)
        word = paddle.argmax(logits, axis=1)
        decoded_sent.append(word.numpy())
        word = paddle.unsqueeze(word, axis=-1)
    assert np.stack(decoded_sent, axis=1).shape == (n, MAX_LEN + 2)


# ----- (3) U-Net segmentation ---------------------------------------------------------------

class SeparableConv2D(paddle.nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=None, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__()
        self._padding = padding
        self._stride = stride
        self._dilation = dilation
        self._in_channels = in_channels
        self._data_format = data_format
        filter_shape = [in_channels, 1] + self.convert_to_list(kernel_size, 2, 'kernel_size')
        self.weight_conv = self.create_parameter(shape=filter_shape, attr=weight_attr)
        filter_shape = [out_channels, in_channels] + self.convert_to_list(1, 2, 'kernel_size')
        self.weight_pointwise = self.create_parameter(shape=filter_shape, attr=weight_attr)
        self.bias_pointwise = self.create_parameter(shape=[out_channels], attr=bias_attr,
                                                    is_bias=True)

    def convert_to_list(self, value, n, name, dtype=int):
        if isinstance(value, dtype):
            return [value, ] * n
        return list(value)

    def forward(self, inputs):
        conv_out = F.conv2d(inputs, self.weight_conv, padding=self._padding,
                            stride=self._stride, dilation=self._dilation,
                            groups=self._in_channels, data_format=self._data_format)
        out = F.conv2d(conv_out, self.weight_pointwise, bias=self.bias_pointwise, padding=0,
                       stride=1, dilation=1, groups=1, data_format=self._data_format)
        return out


class PetEncoder(paddle.nn.Layer):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.relus = paddle.nn.LayerList([paddle.nn.ReLU() for i in range(2)])
        self.separable_conv_01 = SeparableConv2D(in_channels, out_channels, kernel_size=3,
                                                 padding='same')
        self.bns = paddle.nn.LayerList([paddle.nn.BatchNorm2D(out_channels) for i in range(2)])
        self.separable_conv_02 = SeparableConv2D(out_channels, out_channels, kernel_size=3,
                                                 padding='same')
        self.pool = paddle.nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.residual_conv = paddle.nn.Conv2D(in_channels, out_channels, kernel_size=1,
                                              stride=2, padding='same')

    def forward(self, inputs):
        previous_block_activation = inputs
        y = self.relus[0](inputs)
        y = self.separable_conv_01(y)
        y = self.bns[0](y)
        y = self.relus[1](y)
        y = self.separable_conv_02(y)
        y = self.bns[1](y)
        y = self.pool(y)
        residual = self.residual_conv(previous_block_activation)
        y = paddle.add(y, residual)
        return y


class PetDecoder(paddle.nn.Layer):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.relus = paddle.nn.LayerList([paddle.nn.ReLU() for i in range(2)])
        self.conv_transpose_01 = paddle.nn.Conv2DTranspose(in_channels, out_channels,
                                                           kernel_size=3, padding=1)
        self.conv_transpose_02 = paddle.nn.Conv2DTranspose(out_channels, out_channels,
                                                           kernel_size=3, padding=1)
        self.bns = paddle.nn.LayerList([paddle.nn.BatchNorm2D(out_channels) for i in range(2)])
        self.upsamples = paddle.nn.LayerList([paddle.nn.Upsample(scale_factor=2.0)
                                              for i in range(2)])
        self.residual_conv = paddle.nn.Conv2D(in_channels, out_channels, kernel_size=1,
                                              padding='same')

    def forward(self, inputs):
        previous_block_activation = inputs
        y = self.relus[0](inputs)
        y = self.conv_transpose_01(y)
        y = self.bns[0](y)
        y = self.relus[1](y)
        y = self.conv_transpose_02(y)
        y = self.bns[1](y)
        y = self.upsamples[0](y)
        residual = self.upsamples[1](previous_block_activation)
        residual = self.residual_conv(residual)
        y = paddle.add(y, residual)
        return y


class PetNet(paddle.nn.Layer):
    def __init__(self, num_classes):
        super().__init__()
        self.conv_1 = paddle.nn.Conv2D(3, 8, kernel_size=3, stride=2, padding='same')
        self.bn = paddle.nn.BatchNorm2D(8)
        self.relu = paddle.nn.ReLU()
        in_channels = 8
        self.encoders = []
        self.encoder_list = [8, 16]
        self.decoder_list = [16, 8, 8]
        for out_channels in self.encoder_list:
            block = self.add_sublayer(f'encoder_{out_channels}',
                                      PetEncoder(in_channels, out_channels))
            self.encoders.append(block)
            in_channels = out_channels
        self.decoders = []
        for i, out_channels in enumerate(self.decoder_list):
            block = self.add_sublayer(f'decoder_{out_channels}_{i}',
                                      PetDecoder(in_channels, out_channels))
            self.decoders.append(block)
            in_channels = out_channels
        self.output_conv = paddle.nn.Conv2D(in_channels, num_classes, kernel_size=3,
                                            padding='same')

    def forward(self, inputs):
        y = self.conv_1(inputs)
        y = self.bn(y)
        y = self.relu(y)
        for encoder in self.encoders:
            y = encoder(y)
        for decoder in self.decoders:
            y = decoder(y)
        y = self.output_conv(y)
        return y


class SoftmaxWithCrossEntropy(paddle.nn.Layer):
    def __init__(self):
        super().__init__()

    def forward(self, input, label):  # noqa: A002 - the tutorial's name
        loss = F.softmax_with_cross_entropy(input, label, return_softmax=False, axis=1)
        return paddle.mean(loss)


def test_unet_petnet_with_model_fit():
    paddle.seed(3)
    num_classes = 3
    rs = np.random.RandomState(0)

    class PetDataset(paddle.io.Dataset):
        def __init__(self, mode='train'):
            self.imgs = rs.rand(16, 3, 16, 16).astype('float32')
            labels = (self.imgs.mean(1, keepdims=True) * num_classes).astype('int64')
            self.labels = labels.clip(0, num_classes - 1)

        def __getitem__(self, idx):
            return self.imgs[idx], self.labels[idx]

        def __len__(self):
            return len(self.imgs)

    model = paddle.Model(PetNet(num_classes))
    optim = paddle.optimizer.RMSProp(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-07,
                                     centered=False, parameters=model.parameters())
    model.prepare(optim, SoftmaxWithCrossEntropy())
    history = []

    class LossHistory(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            history.append(logs['loss'][0])

    model.fit(PetDataset('train'), PetDataset('test'), epochs=3, batch_size=8, verbose=0,
              callbacks=[LossHistory()])
    _decreased(history, 0.8)
    predict_results = model.predict(PetDataset('test'), verbose=0)
    assert len(predict_results[0]) == 16 and predict_results[0][0].shape == (1, 3, 16, 16)


def test_unet_concat_skip_connections_cross_entropy_axis_1():
    paddle.seed(4)

    class DoubleConv(nn.Layer):
        def __init__(self, in_ch, out_ch):
            super().__init__()
            self.conv = nn.Sequential(
                nn.Conv2D(in_ch, out_ch, 3, padding=1, bias_attr=False), nn.BatchNorm2D(out_ch),
                nn.ReLU(),
                nn.Conv2D(out_ch, out_ch, 3, padding=1, bias_attr=False),
                nn.BatchNorm2D(out_ch), nn.ReLU())

        def forward(self, x):
            return self.conv(x)

    class UNet(nn.Layer):
        def __init__(self, num_classes=2):
            super().__init__()
            self.inc = DoubleConv(1, 8)
            self.down1 = nn.Sequential(nn.MaxPool2D(kernel_size=2, stride=2), DoubleConv(8, 16))
            self.down2 = nn.Sequential(nn.MaxPool2D(2), DoubleConv(16, 32))
            self.up1 = nn.Conv2DTranspose(32, 16, kernel_size=2, stride=2)
            self.conv1 = DoubleConv(32, 16)
            self.up2 = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
            self.conv2 = DoubleConv(16 + 8, 8)
            self.outc = nn.Conv2D(8, num_classes, 1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.down1(x1)
            x3 = self.down2(x2)
            y = self.conv1(paddle.concat([x2, self.up1(x3)], axis=1))
            y = self.conv2(paddle.concat([x1, self.up2(y)], axis=1))
            return self.outc(y)

    rs = np.random.RandomState(0)
    imgs = rs.rand(8, 1, 16, 16).astype('float32')
    masks = (imgs > 0.5).astype('int64')  # [N, 1, H, W]
    model = UNet(2)
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    history = []
    for _step in range(6):
        logits = model(paddle.to_tensor(imgs))
        loss = F.cross_entropy(logits, paddle.to_tensor(masks), axis=1)
        loss.backward()
        opt.step()
        opt.clear_grad()
        history.append(loss.item())
    _decreased(history, 0.8)
    model.eval()
    logits = model(paddle.to_tensor(imgs))
    label_nhw = paddle.to_tensor(masks[:, 0])  # labels without the class axis work too
    np.testing.assert_allclose(float(F.cross_entropy(logits, label_nhw, axis=1)),
                               float(nn.CrossEntropyLoss(axis=1)(logits,
                                                                  paddle.to_tensor(masks))),
                               rtol=1e-6)
    pred = paddle.argmax(logits, axis=1)
    assert pred.shape == [8, 16, 16]


# ----- (4) skip-gram word2vec with sparse embeddings --------------------------------------------

class SkipGram(paddle.nn.Layer):
    def __init__(self, vocab_size, embedding_size, init_scale=0.1):
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding_size = embedding_size
        self.embedding = nn.Embedding(
            num_embeddings=self.vocab_size, embedding_dim=self.embedding_size, sparse=True,
            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Uniform(
                low=-init_scale, high=init_scale)))
        self.embedding_out = nn.Embedding(
            num_embeddings=self.vocab_size, embedding_dim=self.embedding_size, sparse=True,
            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Uniform(
                low=-init_scale, high=init_scale)))

    def forward(self, center_words, target_words, label):
        center_words_emb = self.embedding(center_words)
        target_words_emb = self.embedding_out(target_words)
        word_sim = paddle.multiply(center_words_emb, target_words_emb)
        word_sim = paddle.sum(word_sim, axis=-1)
        word_sim = paddle.reshape(word_sim, shape=[-1])
        pred = F.sigmoid(word_sim)
        loss = F.binary_cross_entropy_with_logits(word_sim, label)
        loss = paddle.mean(loss)
        return pred, loss


def _skip_gram_data(corpus, vocab_size, max_window_size=2, negative_sample_num=3):
    dataset = []
    for center_word_idx in range(len(corpus)):
        window_size = random.randint(1, max_window_size)
        center_word = corpus[center_word_idx]
        lo = max(0, center_word_idx - window_size)
        hi = min(len(corpus) - 1, center_word_idx + window_size)
        positive_word_candidates = [corpus[idx] for idx in range(lo, hi + 1)
                                    if idx != center_word_idx]
        for positive_word in positive_word_candidates:
            dataset.append((center_word, positive_word, 1))
            i = 0
            while i < negative_sample_num:
                negative_word_candidate = random.randint(0, vocab_size - 1)
                if negative_word_candidate not in positive_word_candidates:
                    dataset.append((center_word, negative_word_candidate, 0))
                    i += 1
    return dataset


def _skip_gram_batches(dataset, batch_size, epoch_num):
    center_word_batch, target_word_batch, label_batch = [], [], []
    for _epoch in range(epoch_num):
        random.shuffle(dataset)
        for center_word, target_word, label in dataset:
            center_word_batch.append([center_word])
            target_word_batch.append([target_word])
            label_batch.append(label)
            if len(center_word_batch) == batch_size:
                yield (np.array(center_word_batch).astype("int64"),
                       np.array(target_word_batch).astype("int64"),
                       np.array(label_batch).astype("float32"))
                center_word_batch, target_word_batch, label_batch = [], [], []


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_skip_gram_sparse_embedding(optimizer):
    paddle.seed(5)
    random.seed(0)
    vocab_size = 30
    corpus = [i % 10 + 10 * (i // 40 % 3) for i in range(300)]  # three topics of ten words
    dataset = _skip_gram_data(corpus, vocab_size)
    skip_gram_model = SkipGram(vocab_size, 16)
    if optimizer == "SGD":
        opt = paddle.optimizer.SGD(learning_rate=5.0, parameters=skip_gram_model.parameters())
    else:
        opt = paddle.optimizer.Adam(learning_rate=0.01,
                                    parameters=skip_gram_model.parameters())
    before = skip_gram_model.embedding.weight.numpy().copy()
    history = []
    for center_words, target_words, label in _skip_gram_batches(dataset, 128, 2):
        center_words_var = paddle.to_tensor(center_words)
        target_words_var = paddle.to_tensor(target_words)
        label_var = paddle.to_tensor(label)
        pred, loss = skip_gram_model(center_words_var, target_words_var, label_var)
        loss.backward()
        opt.step()
        opt.clear_grad()
        history.append(loss.numpy().item())
    assert pred.shape == [128]
    _decreased(history, 0.995 if optimizer == "SGD" else 0.9)
    W = skip_gram_model.embedding.weight.numpy()
    assert not np.allclose(W, before)
    x = W[3]
    cos = np.dot(W, x) / np.sqrt(np.sum(W * W, axis=1) * np.sum(x * x) + 1e-9)
    assert np.argmax(cos) == 3


# ----- (5) VAE: reparameterisation, KL term, mean over the batch --------------------------------

class VAE(nn.Layer):
    def __init__(self, in_dim=64, h_dim=32, z_dim=4):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, h_dim)
        self.fc21 = nn.Linear(h_dim, z_dim)
        self.fc22 = nn.Linear(h_dim, z_dim)
        self.fc3 = nn.Linear(z_dim, h_dim)
        self.fc4 = nn.Linear(h_dim, in_dim)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = paddle.exp(0.5 * logvar)
        eps = paddle.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return F.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.reshape([-1, 64]))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def _vae_loss(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.reshape([-1, 64]), reduction='sum')
    KLD = -0.5 * paddle.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (BCE + KLD) / x.shape[0]


def test_vae():
    paddle.seed(6)
    data = (np.random.RandomState(0).rand(32, 1, 8, 8) > 0.5).astype('float32')
    model = VAE()
    optimizer = paddle.optimizer.Adam(parameters=model.parameters(), learning_rate=1e-2)
    loader = paddle.io.DataLoader(paddle.io.TensorDataset([paddle.to_tensor(data)]),
                                  batch_size=16, shuffle=True)
    history = []
    for _epoch in range(4):
        model.train()
        for _batch_idx, (x,) in enumerate(loader):
            recon_batch, mu, logvar = model(x)
            loss = _vae_loss(recon_batch, x, mu, logvar)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            history.append(loss.item())
    _decreased(history, 0.97)
    model.eval()
    with paddle.no_grad():
        sample = model.decode(paddle.randn([8, 4]))
    assert sample.shape == [8, 64] and 0 <= sample.numpy().min() <= sample.numpy().max() <= 1


# ----- (6) the high-level API, schedulers, checkpoints and metrics --------------------------------

class RandomDataset(paddle.io.Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples
        rs = np.random.RandomState(num_samples)
        self.x = rs.rand(num_samples, 1, 8, 8).astype('float32')
        self.y = (self.x.reshape(num_samples, -1).mean(1) * 10 - 4).astype('int64').clip(0, 2)

    def __getitem__(self, idx):
        return self.x[idx], np.array([self.y[idx]]).astype('int64')

    def __len__(self):
        return self.num_samples


class LeNet(nn.Layer):
    def __init__(self, num_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(64, 32), nn.Linear(32, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        x = paddle.flatten(x, 1)
        return self.fc(x)


def test_model_fit_callbacks_schedules_and_checkpoints(tmp_path):
    paddle.seed(7)
    inputs = InputSpec([None, 1, 8, 8], 'float32', 'image')
    labels = InputSpec([None, 1], 'int64', 'label')
    model = paddle.Model(LeNet(), inputs, labels)
    scheduler = paddle.optimizer.lr.PiecewiseDecay(boundaries=[4, 8], values=[0.05, 0.02, 0.01])
    optim = paddle.optimizer.Momentum(learning_rate=scheduler, momentum=0.9,
                                      parameters=model.parameters(),
                                      weight_decay=paddle.regularizer.L2Decay(1e-4))
    model.prepare(optim, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
    callbacks = [paddle.callbacks.LRScheduler(by_step=True, by_epoch=False),
                 paddle.callbacks.EarlyStopping('loss', mode='min', patience=2, verbose=0),
                 paddle.callbacks.ModelCheckpoint(save_freq=1, save_dir=str(tmp_path))]
    before = model.evaluate(RandomDataset(32), batch_size=16, verbose=0)
    model.fit(RandomDataset(64), RandomDataset(32), epochs=3, batch_size=16, verbose=0,
              callbacks=callbacks)
    assert scheduler.last_epoch == 12 and optim.get_lr() == 0.01  # stepped per batch
    assert {"0.pdparams", "final.pdparams", "final.pdopt"} <= {p.name for p in tmp_path.iterdir()}
    result = model.evaluate(RandomDataset(32), batch_size=16, verbose=0)
    assert result['loss'][0] < before['loss'][0]
    assert result['acc_top1'] <= result['acc_top2'] <= 1.0

    model.save(str(tmp_path / 'checkpoint/test'))
    model2 = paddle.Model(LeNet(), inputs, labels)
    model2.prepare(paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9,
                                             parameters=model2.parameters()),
                   paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
    model2.load(str(tmp_path / 'checkpoint/test'))
    assert model2.evaluate(RandomDataset(32), batch_size=16, verbose=0) == result


def test_manual_loop_scheduler_per_batch_accuracy_and_state_dicts(tmp_path):
    paddle.seed(8)
    layer = LeNet()
    scheduler = paddle.optimizer.lr.LinearWarmup(
        learning_rate=paddle.optimizer.lr.CosineAnnealingDecay(0.02, T_max=8),
        warmup_steps=4, start_lr=0.0, end_lr=0.02)
    adam = paddle.optimizer.Adam(learning_rate=scheduler, parameters=layer.parameters())
    loader = paddle.io.DataLoader(RandomDataset(64), batch_size=16, shuffle=True,
                                  drop_last=True, num_workers=0)
    loss_fn = nn.CrossEntropyLoss()
    acc = paddle.metric.Accuracy(topk=(1, 2))
    history, lrs = [], []
    for _epoch in range(3):
        for _batch_id, (image, label) in enumerate(loader()):
            out = layer(image)
            loss = loss_fn(out, label)
            loss.backward()
            adam.step()
            adam.clear_grad()
            lrs.append(adam.get_lr())
            scheduler.step()
            correct = acc.compute(out, label)
            acc.update(correct)
            acc2 = paddle.metric.accuracy(input=out, label=paddle.to_tensor(label), k=2)
            history.append(loss.item())
        top1, top2 = acc.accumulate()
        assert acc.name() == ['acc_top1', 'acc_top2'] and top1 <= top2 <= 1.0
        assert 0.0 <= float(acc2) <= 1.0
        acc.reset()
    assert lrs[0] == 0.0 and lrs[4] == pytest.approx(0.02)  # warm-up, then the cosine
    _decreased(history)

    image, label = next(iter(loader))
    with paddle.no_grad():
        saved = layer(image).numpy()
    paddle.save(layer.state_dict(), str(tmp_path / "linear_net.pdparams"))
    paddle.save(adam.state_dict(), str(tmp_path / "adam.pdopt"))
    loss_fn(layer(image), label).backward()  # train on, then go back to the checkpoint
    adam.step()
    adam.clear_grad()
    scheduler.step()
    layer_state_dict = paddle.load(str(tmp_path / "linear_net.pdparams"))
    opt_state_dict = paddle.load(str(tmp_path / "adam.pdopt"))
    layer.set_state_dict(layer_state_dict)
    adam.set_state_dict(opt_state_dict)
    assert scheduler.last_epoch == 12
    with paddle.no_grad():
        np.testing.assert_array_equal(layer(image).numpy(), saved)


# ----- the gaps the ports found, fixed in core --------------------------------------------------

def test_randn_like_and_rand_like():
    """The VAE's ``eps = paddle.randn_like(std)``: Paddle 3's randn_like / rand_like."""
    std = paddle.exp(paddle.to_tensor(np.zeros((3, 4)), stop_gradient=False))
    paddle.seed(0)
    eps = paddle.randn_like(std)
    assert eps.shape == [3, 4] and eps.dtype == paddle.float64 and eps.stop_gradient
    paddle.seed(0)
    np.testing.assert_array_equal(eps.numpy(), paddle.randn([3, 4], dtype='float64').numpy())
    assert paddle.randn_like(std, dtype='float32').dtype == paddle.float32
    u = paddle.rand_like(paddle.zeros([500]))
    assert u.dtype == paddle.float32 and 0.0 <= u.numpy().min() <= u.numpy().max() < 1.0
    leaf = paddle.rand_like(std, dtype='float32', requires_grad=True, device='cpu')
    assert leaf.dtype == paddle.float32 and not leaf.stop_gradient and leaf.place == 'cpu'
    with pytest.raises(TypeError, match="randn_like: dtype int64"):
        paddle.randn_like(paddle.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="'x' must be a Tensor"):
        paddle.randn_like(np.zeros(3))


def test_sequence_mask_is_paddles_tensor():
    """``F.sequence_mask(x, maxlen=None, dtype='int64')`` returns a Tensor of shape
    ``x.shape + [maxlen]`` (it returned a raw bool array of the flattened lengths)."""
    lengths = paddle.to_tensor([3, 1, 0])
    mask = F.sequence_mask(lengths, maxlen=4)
    assert isinstance(mask, paddle.Tensor) and mask.dtype == paddle.int64
    assert mask.tolist() == [[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    assert F.sequence_mask(lengths).shape == [3, 3]  # maxlen: the longest length
    assert F.sequence_mask(lengths, paddle.to_tensor(2), 'float32').dtype == paddle.float32
    nested = F.sequence_mask(paddle.to_tensor([[2, 1]]), maxlen=3, dtype='bool')
    assert nested.shape == [1, 2, 3] and nested.tolist() == [[[True, True, False],
                                                             [True, False, False]]]
    with pytest.raises(ValueError, match="maxlen must be None or an int >= 0, got -1"):
        F.sequence_mask(lengths, maxlen=-1)
    with pytest.raises(TypeError, match="x must hold integers"):
        F.sequence_mask(paddle.to_tensor([1.5]))


def test_bitwise_operators_on_masks():
    """``~mask``, ``mask & other``, ``|`` and ``^`` (Paddle's bitwise ops; logical on bool)."""
    a = paddle.to_tensor([True, False, True, False])
    b = paddle.to_tensor([True, True, False, False])
    assert (~a).tolist() == [False, True, False, True]
    assert (a & b).tolist() == [True, False, False, False]
    assert (a | b).tolist() == [True, True, True, False]
    assert (a ^ b).tolist() == [False, True, True, False]
    assert (True & a).tolist() == a.tolist() and (False | a).tolist() == a.tolist()
    assert paddle.bitwise_and(paddle.to_tensor([6, 5]), paddle.to_tensor([3, 3])).tolist() == [2, 1]
    assert paddle.bitwise_or(paddle.to_tensor([4]), paddle.to_tensor([1])).tolist() == [5]
    assert paddle.bitwise_xor(paddle.to_tensor([6]), 3).tolist() == [5]
    assert paddle.bitwise_not(paddle.to_tensor([0, -1], dtype='int32')).tolist() == [-1, 0]
    assert a.bitwise_not().tolist() == (~a).tolist()
    scores = paddle.randn([2, 1, 4])
    pad = paddle.unsqueeze(F.sequence_mask(paddle.to_tensor([2, 4]), 4).astype('bool'), 1)
    masked = scores.masked_fill(~pad, -1e9)
    assert masked.numpy()[0, 0, 2:].max() == -1e9
    with pytest.raises(TypeError, match="bitwise_not: x must be a bool or integer tensor, "
                                        "got dtype float32"):
        ~paddle.ones([2])
    with pytest.raises(TypeError, match="bitwise_and: y must be a bool or integer"):
        a & paddle.ones([4])
    with pytest.raises(TypeError, match="out= is not supported"):
        paddle.bitwise_or(a, b, out=a)
