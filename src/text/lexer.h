/* Tokens of the MLIR textual format. */
#ifndef SHLOC_TEXT_LEXER_H
#define SHLOC_TEXT_LEXER_H

#include "support/status.h"
#include "support/strview.h"

typedef enum {
  TK_EOF = 0,
  TK_ERROR,
  TK_BARE_ID,    /* foo, stablehlo.add, f32, x3xf32 */
  TK_PERCENT_ID, /* %0, %arg0 (text includes '%') */
  TK_CARET_ID,   /* ^bb0 */
  TK_AT_ID,      /* @foo or @"quoted" (text includes '@') */
  TK_HASH_ID,    /* #loc3, #stablehlo, #sdy.sharding, #1 (text includes '#') */
  TK_BANG_ID,    /* !stablehlo.token, !quant.uniform */
  TK_INT,        /* 42, 0x2A */
  TK_FLOAT,      /* 1.5, 1.0e-3 */
  TK_STRING,     /* "..." (text includes quotes, escapes undecoded) */
  TK_ARROW,      /* -> */
  TK_META_BEGIN, /* {-# */
  TK_META_END,   /* #-} */
  TK_ELLIPSIS,   /* ... */
  TK_PUNCT,      /* one character: ( ) [ ] { } < > , : = * ? + - | */
} shl_token_kind;

typedef struct {
  shl_token_kind kind;
  bool hex_upper; /* TK_STRING "0x..." whose digits are all uppercase hex (checked while scanning) */
  shl_str text;
  int line, col;
} shl_token;

typedef struct {
  const char *begin, *p, *end;
  const char *line_start;
  int line;
  const char *file;
  shl_token tok;        /* current token */
  const char *error;    /* message of the last TK_ERROR */
} shl_lexer;

void lexer_init(shl_lexer *lx, const char *file, const char *text, size_t len, int first_line);
/* Advances to the next token (also stored in lx->tok). */
void lexer_next(shl_lexer *lx);
/* Repositions so that the next token starts at `p` (which must lie on line
 * `line` starting at `line_start`). */
void lexer_seek(shl_lexer *lx, const char *p, int line, const char *line_start);

static inline bool tok_punct(const shl_token *t, char c) {
  return t->kind == TK_PUNCT && t->text.p[0] == c;
}
static inline bool tok_kw(const shl_token *t, const char *kw) {
  return t->kind == TK_BARE_ID && str_eq_c(t->text, kw);
}

/* Decodes an MLIR string literal (the token, quotes included) into out
 * (capacity >= body length); returns the decoded length or -1 on a bad escape. */
long lexer_decode_string(shl_str quoted, char *out);
/* Value of a TK_INT token (decimal or 0x hex); false when it exceeds 64 bits. */
bool lexer_int_value(shl_str text, uint64_t *out);

#endif
