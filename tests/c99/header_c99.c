/* Compiled, never run: tsbridge.h must be strict C99 (no C++-isms, no C11)
 * so that every C host and FFI generator can read it. Included first so
 * that it is self-contained, then twice to prove the include guard. */
#include <tsbridge/tsbridge.h>
#include <tsbridge/tsbridge.h>

/* C99 has no _Static_assert: a negative array size fails the build. The
 * design promises a 16-byte value with the type index first. */
typedef char tsb_any_is_16_bytes[sizeof(tsb_any) == 16 ? 1 : -1];
typedef char tsb_any_index_first[offsetof(tsb_any, type_index) == 0 ? 1 : -1];

/* Hosts compare versions in the preprocessor. */
#if TSB_VERSION != TSB_VERSION_MAJOR * 10000 + TSB_VERSION_MINOR * 100 + TSB_VERSION_PATCH
#error "TSB_VERSION does not follow its components"
#endif

/* The inline builders compile as C99 inline functions and return by value. */
tsb_any header_c99_values(void);
tsb_any header_c99_values(void) {
  tsb_any v[9];
  v[0] = tsb_any_none();
  v[1] = tsb_any_bool(true);
  v[2] = tsb_any_int(INT64_MIN);
  v[3] = tsb_any_float(0.5);
  v[4] = tsb_any_dtype(6);
  v[5] = tsb_any_layout(0);
  v[6] = tsb_any_memory_format(0);
  v[7] = tsb_any_device(0, -1);
  v[8] = tsb_any_borrowed_str("x");
  return v[8];
}

/* Function pointers to the entry points: their prototypes are complete. */
typedef tsb_status* (*coerce_fn)(const tsb_any*, int32_t, tsb_any*);
coerce_fn header_c99_coerce(void);
coerce_fn header_c99_coerce(void) { return &tsb_any_coerce; }
