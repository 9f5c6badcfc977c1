/*
** cache_plan.c: the cache rows of a memory plan: an attention model's K
** and V cache per layer (sliding windows, MLA, the V cache transposed
** without flash attention) and the largest attention scores, then the
** exact compute buffer where compute_plan.c knows the graph; a mamba
** model's recurrent states.  The layers' weights rows go between them, as
** gguf_memory() lists them.  Layer: plan.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"
#include "formats/ggml_type.h"
#include "memory_plan_int.h"

/* llama_init_from_model's check with flash attention on: a quantized
** cache type (ggml_is_quantized) must have a block that divides the head
** size of its kind ('K' or 'V'). */
static int mp_fa_block(mp_ctx *x, char kind, int64_t type, uint64_t head) {
  const ggml_type_info *ti = ggml_type_get(type);
  char name[32];
  if (ti == NULL || ti->block_size <= 1 || head % ti->block_size == 0)
    return 0;
  mp_type_name(type, name, sizeof(name));
  return wt_fail(x->err,
                 "%c cache type %s with flash attention on: llama.cpp refuses it: \"%c cache type "
                 "%s with block size %u does not divide n_embd_head_%c=%llu\"",
                 kind, name, kind, name, ti->block_size, kind == 'K' ? 'k' : 'v',
                 (unsigned long long)head);
}

/* The K and V cache rows of an attention model; cells per stream. */
int mp_attention(mp_ctx *x, const mp_arch *a, const wt_mem_settings *s, uint64_t cells) {
  uint64_t n_embd, *head, *head_kv, hk, hv, n_swa, swa_cells, il, v_max = 0;
  uint64_t kmla = 0, vmla = 0;
  const ggml_type_info *tk = ggml_type_get(s->type_k), *tv = ggml_type_get(s->type_v);
  int found_swa, mla, rc = -1;
  if (mp_uint(x, "embedding_length", 1, 0, &n_embd, NULL) != 0)
    return -1;
  head = calloc((size_t)x->n_layer * 2, sizeof(*head));
  if (head == NULL)
    return wt_fail(x->err, "out of memory");
  head_kv = head + x->n_layer;
  if (mp_per_layer(x, "attention.head_count", NULL, head) != 0 ||
      mp_per_layer(x, "attention.head_count_kv", head, head_kv) != 0)
    goto done;
  if (head[0] == 0) {
    wt_fail(x->err, "key '%.*s.attention.head_count' is 0 for layer 0", (int)x->arch.n, x->arch.p);
    goto done;
  }
  if (mp_uint(x, "attention.key_length", 0, n_embd / head[0], &hk, NULL) != 0 ||
      mp_uint(x, "attention.value_length", 0, n_embd / head[0], &hv, NULL) != 0 ||
      mp_uint(x, "attention.sliding_window", a->swa_needs_window == 2, a->swa_default, &n_swa,
              &found_swa) != 0 ||
      mp_uint(x, "attention.key_length_mla", 0, 0, &kmla, NULL) != 0 ||
      mp_uint(x, "attention.value_length_mla", 0, 0, &vmla, NULL) != 0)
    goto done;
  /* llama.cpp's is_mla(): the decompression head sizes are given. */
  mla = kmla != 0 && vmla != 0;
  if (s->flash_attn &&
      (mp_fa_block(x, 'K', s->type_k, hk) != 0 || mp_fa_block(x, 'V', s->type_v, hv) != 0))
    goto done;
  if (a->swa_pattern == 0 || (a->swa_needs_window && (!found_swa || n_swa == 0)))
    n_swa = 0;
  if (wt_add(n_swa, s->n_ubatch, &swa_cells) != 0 || swa_cells > UINT64_MAX - MP_PAD) {
    wt_fail(x->err, "the sliding window %llu overflows", (unsigned long long)n_swa);
    goto done;
  }
  swa_cells = mp_pad(swa_cells, MP_PAD);
  if (swa_cells > cells || s->swa_full)
    swa_cells = cells;
  x->n_embd = n_embd;
  x->known_compute = 1;
  /* Without flash attention V is stored transposed, every layer as wide as
  ** the widest, even one without KV heads (head_count_kv 0: no K). */
  for (il = 0; il < x->n_layer; il++) {
    uint64_t w;
    if (wt_mul(hv, head_kv[il], &w) != 0) {
      wt_fail(x->err, "value_length * head_count_kv overflows 64 bits");
      goto done;
    }
    if (w > v_max)
      v_max = w;
  }
  for (il = 0; il < x->n_layer; il++) {
    int swa = n_swa != 0 && il % a->swa_pattern < a->swa_pattern - 1;
    uint64_t c = swa ? swa_cells : cells, nk, nv, rk = 0, rv = 0, kb = 0, vb = 0, kq = 0;
    char where[MP_NOTE_SIZE];
    if (mp_weights(x, (int64_t)il) != 0)
      goto done;
    if (wt_mul(hk, head_kv[il], &nk) != 0) {
      wt_fail(x->err, "key_length * head_count_kv overflows 64 bits");
      goto done;
    }
    nv = s->flash_attn ? hv * head_kv[il] : v_max;
    if (mp_row_size(x, s->type_k, nk, &rk) != 0 || mp_row_size(x, s->type_v, nv, &rv) != 0 ||
        mp_mul3(x, rk, c, s->n_seq, "the K cache", &kb) != 0 ||
        mp_mul3(x, rv, c, s->n_seq, "the V cache", &vb) != 0)
      goto done;
    /* on the GPU each tensor's last row is padded and the tensor aligned
    ** (the CUDA buffer type's get_alloc_size and alignment) */
    if (mp_layer_gpu(x, (int64_t)il) &&
        ((kb = wt_cuda_tensor_bytes(s->type_k, nk, c * s->n_seq)) == 0 ||
         (vb != 0 && (vb = wt_cuda_tensor_bytes(s->type_v, nv, c * s->n_seq)) == 0))) {
      wt_fail(x->err, "the KV cache on the GPU overflows");
      goto done;
    }
    /* Without flash attention a layer with KV heads computes its scores
    ** kq = mul_mat(k, q), F32, c cells x n_tokens x n_head (build_attn_mha,
    ** src/llama-graph.cpp); the compute buffer holds the largest at once. */
    if (!s->flash_attn && head_kv[il] != 0 &&
        (mp_mul3(x, c, x->n_tokens, head[il], "the attention scores", &kq) != 0 ||
         mp_mul3(x, kq, 4, 1, "the attention scores", &kq) != 0))
      goto done;
    if (kq > x->kq)
      x->kq = kq;
    if (kq > x->kq_dev[!mp_layer_gpu(x, (int64_t)il)])
      x->kq_dev[!mp_layer_gpu(x, (int64_t)il)] = kq;
    if (swa)
      snprintf(where, sizeof(where), ", sliding window %llu", (unsigned long long)n_swa);
    else
      where[0] = 0;
    if (mp_row(x, (int64_t)il, "k_cache", 1, kb, "%s, %llu cells x %llu streams, %llu values%s%s",
               tk->name, (unsigned long long)c, (unsigned long long)s->n_seq,
               (unsigned long long)nk, where, mla ? ", MLA latent + rope" : "") != 0)
      goto done;
    mp_row_dev(x, mp_layer_dev(x, (int64_t)il));
    x->plan->rows[x->plan->n_rows - 1].buffer = swa ? WT_BUF_KV_SWA : WT_BUF_KV;
    /* (rc stays -1 until the last layer is done: an error on any layer
    ** is the plan's error, not a plan cut short.) */
    if (mla ? mp_row(x, (int64_t)il, "v_cache", 1, 0,
                     "none, %llu cells x %llu streams: MLA reads V from the K cache%s",
                     (unsigned long long)c, (unsigned long long)s->n_seq, where)
            : mp_row(x, (int64_t)il, "v_cache", 1, vb,
                     "%s, %llu cells x %llu streams, %llu values%s", tv->name,
                     (unsigned long long)c, (unsigned long long)s->n_seq, (unsigned long long)nv,
                     where))
      goto done;
    mp_row_dev(x, mp_layer_dev(x, (int64_t)il));
    x->plan->rows[x->plan->n_rows - 1].buffer = swa ? WT_BUF_KV_SWA : WT_BUF_KV;
  }
  {
    mp_attn_shape shape;
    shape.head = head;
    shape.head_kv = head_kv;
    shape.hk = hk;
    shape.hv = hv;
    shape.n_embd = n_embd;
    shape.cells = cells;
    shape.n_swa = n_swa;
    shape.swa_pattern = a->swa_pattern;
    shape.swa_cells = swa_cells;
    shape.kmla = mla ? kmla : 0;
    shape.vmla = mla ? vmla : 0;
    if (mp_exact_compute(x, s, &shape) != 0)
      goto done;
  }
  rc = 0;
done:
  free(head);
  return rc;
}

/* The recurrent state rows of a mamba model: r (conv) and s (ssm), F32. */
int mp_mamba(mp_ctx *x, const wt_mem_settings *s) {
  uint64_t d_conv, d_inner, d_state, n_group, r = 0, sv = 0, t = 0, il, cells = s->n_seq;
  if (mp_uint(x, "ssm.conv_kernel", 1, 0, &d_conv, NULL) != 0 ||
      mp_uint(x, "ssm.inner_size", 1, 0, &d_inner, NULL) != 0 ||
      mp_uint(x, "ssm.state_size", 1, 0, &d_state, NULL) != 0 ||
      mp_uint(x, "ssm.group_count", 0, 0, &n_group, NULL) != 0)
    return -1;
  if (d_conv == 0)
    return wt_fail(x->err, "key '%.*s.ssm.conv_kernel' is 0", (int)x->arch.n, x->arch.p);
  if (mp_mul3(x, 2, n_group, d_state, "the conv state", &t) != 0 || wt_add(t, d_inner, &t) != 0 ||
      mp_mul3(x, d_conv - 1, t, 4, "the conv state", &r) != 0 ||
      mp_mul3(x, r, cells, 1, "the conv state", &r) != 0 ||
      mp_mul3(x, d_state, d_inner, 4, "the ssm state", &sv) != 0 ||
      mp_mul3(x, sv, cells, 1, "the ssm state", &sv) != 0)
    return wt_fail(x->err, "the recurrent state overflows 64 bits");
  if (mp_uint(x, "embedding_length", 1, 0, &x->n_embd, NULL) != 0 ||
      (n_group == 0 && mp_exact_compute_mamba(x, s, d_conv, d_inner, d_state, x->n_embd) != 0))
    return -1;
  x->known_compute = 1;
  for (il = 0; il < x->n_layer; il++) {
    const char *dev = mp_layer_dev(x, (int64_t)il);
    int gpu = mp_layer_gpu(x, (int64_t)il); /* (each tensor 128-byte aligned there) */
    if (mp_weights(x, (int64_t)il) != 0 ||
        mp_row(x, (int64_t)il, "recurrent_state", 1, gpu ? mp_pad(r, WT_CUDA_ALIGN) : r,
               "r (conv) F32, %llu cells", (unsigned long long)cells) != 0)
      return -1;
    mp_row_dev(x, dev);
    if (mp_row(x, (int64_t)il, "recurrent_state", 1, gpu ? mp_pad(sv, WT_CUDA_ALIGN) : sv,
               "s (ssm) F32, %llu cells", (unsigned long long)cells) != 0)
      return -1;
    mp_row_dev(x, dev);
  }
  return 0;
}
