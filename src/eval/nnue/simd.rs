//! The two loops inference spends its time in, written for each instruction set and chosen at
//! run time: the accumulator update (`dst = src + rows added - rows removed`, one pass over the
//! destination) and the output layer's dot product with the activation.
//!
//! [`Isa::Portable`] is plain Rust, the reference: the compiler vectorises it for the build's
//! baseline (SSE2 on plain x86-64, which is what wheels are built for). [`Isa::Avx2`] and
//! [`Isa::Avx512`] are written with `std::arch` intrinsics inside `#[target_feature]` functions
//! and are used only when [`Isa::detect`] found the processor supports them. Every path gives
//! exactly the portable result (`tests.rs` checks each one the machine has):
//!
//! - The update adds and subtracts `i16` with wrapping, which is exact and order-free modulo
//!   2^16; the loader checks that no accumulator can leave `i16` anyway.
//! - The dot product is an exact integer sum, so the order of its terms does not matter as long
//!   as no partial sum overflows; see [`TERMS_PER_LANE`] for the bound.

/// An instruction set the inference loops are written for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Plain Rust, vectorised by the compiler for the build's baseline: the reference.
    Portable,
    /// 256-bit AVX2 intrinsics.
    Avx2,
    /// 512-bit AVX-512 (F and BW) intrinsics.
    Avx512,
}

impl Isa {
    /// The widest instruction set this processor supports.
    pub fn detect() -> Isa {
        *Isa::available()
            .last()
            .expect("Portable is always available")
    }

    /// Every instruction set this processor supports, narrowest first.
    pub fn available() -> Vec<Isa> {
        #[allow(unused_mut)]
        let mut isas = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                isas.push(Isa::Avx2);
                if std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                {
                    isas.push(Isa::Avx512);
                }
            }
        }
        isas
    }
}

/// The kernels take slices whose length is a multiple of this: one AVX-512 register of `i16`
/// (two AVX2 ones). The loader requires the hidden layer to be a multiple of it.
pub const LANES: usize = 32;

/// The most products one `i32` lane of the SIMD dot products adds up before it is widened to
/// `i64`. A product is `clamp(x, 0, QA)^2 * w` (or `clamp(x, 0, QA) * w`) with `QA <= 1024` and
/// `QA * |w| <= 32767` for the squared activation (the loader checks it), or `|w| <= 32768` for
/// the plain one: at most 1024 x 32768 = 2^25 in size. 32 of them stay within 2^30 < 2^31.
pub const TERMS_PER_LANE: usize = 32;

/// `dst = src + sum(added) - sum(removed)`, with wrapping `i16` arithmetic, in one pass over
/// `dst`. Every slice has `dst`'s length, a multiple of [`LANES`].
#[inline]
pub fn update(isa: Isa, dst: &mut [i16], src: &[i16], added: &[&[i16]], removed: &[&[i16]]) {
    let n = dst.len();
    assert!(
        n.is_multiple_of(LANES)
            && src.len() == n
            && added.iter().chain(removed).all(|row| row.len() == n),
        "update: every slice must have the destination's length, a multiple of {LANES}"
    );
    match isa {
        Isa::Portable => update_portable(dst, src, added, removed),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an `Isa` other than `Portable` is only ever made after `Isa::available`
        // found the processor supports it (and the lengths were checked above).
        Isa::Avx2 => unsafe { x86::update_avx2(dst, src, added, removed) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX-512 F and BW.
        Isa::Avx512 => unsafe { x86::update_avx512(dst, src, added, removed) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => update_portable(dst, src, added, removed),
    }
}

/// [`update`] in plain Rust: the reference.
pub fn update_portable(dst: &mut [i16], src: &[i16], added: &[&[i16]], removed: &[&[i16]]) {
    dst.copy_from_slice(src);
    for row in added {
        for (value, weight) in dst.iter_mut().zip(row.iter()) {
            *value = value.wrapping_add(*weight);
        }
    }
    for row in removed {
        for (value, weight) in dst.iter_mut().zip(row.iter()) {
            *value = value.wrapping_sub(*weight);
        }
    }
}

/// The output layer's activation, as the dot products need it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `sum(clamp(x, 0, qa) * w)`.
    Clipped,
    /// `sum(clamp(x, 0, qa)^2 * w)` (not yet divided by `qa`); needs `qa * |w| <= 32767`.
    SquaredClipped,
}

/// `sum(activation(values) * weights)` over the two slices, exactly; `values` and `weights` have
/// the same length, a multiple of [`LANES`], `qa <= 1024`.
#[inline]
pub fn dot(isa: Isa, activation: Activation, values: &[i16], weights: &[i16], qa: i16) -> i64 {
    assert!(
        values.len() == weights.len() && values.len().is_multiple_of(LANES) && qa <= 1024,
        "dot: slices of one length, a multiple of {LANES}"
    );
    match isa {
        Isa::Portable => dot_portable(activation, values, weights, qa),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an `Isa` other than `Portable` is only ever made after `Isa::available`
        // found the processor supports it (and the lengths were checked above).
        Isa::Avx2 => unsafe { x86::dot_avx2(activation, values, weights, qa) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX-512 F and BW.
        Isa::Avx512 => unsafe { x86::dot_avx512(activation, values, weights, qa) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => dot_portable(activation, values, weights, qa),
    }
}

/// Values summed in one `i32` before the total moves to `i64` in [`dot_portable`]: the same
/// bound as [`TERMS_PER_LANE`].
const BLOCK: usize = TERMS_PER_LANE;

/// [`dot`] in plain Rust, the reference: blocks of [`BLOCK`] terms summed in `i32`, the blocks in
/// `i64`. The squared activation is taken as `(v * w) * v`: `v * w` fits an `i16`.
pub fn dot_portable(activation: Activation, values: &[i16], weights: &[i16], qa: i16) -> i64 {
    let mut total = 0i64;
    for (values, weights) in values.chunks_exact(BLOCK).zip(weights.chunks_exact(BLOCK)) {
        let mut sum = 0i32;
        for (&value, &weight) in values.iter().zip(weights) {
            let value = value.clamp(0, qa);
            sum += match activation {
                Activation::Clipped => i32::from(value) * i32::from(weight),
                Activation::SquaredClipped => {
                    i32::from(value.wrapping_mul(weight)) * i32::from(value)
                }
            };
        }
        total += i64::from(sum);
    }
    total
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The AVX2 and AVX-512 kernels. Each is an `unsafe fn` with `#[target_feature]`: the
    //! caller must have checked the processor supports the feature and that every slice has the
    //! destination's length, a multiple of [`super::LANES`] (what [`super::update`] and
    //! [`super::dot`] do).

    use std::arch::x86_64::*;

    use crate::eval::nnue::simd::{Activation, TERMS_PER_LANE};

    /// `i16` values in a 256-bit register.
    const W256: usize = 16;
    /// `i16` values in a 512-bit register.
    const W512: usize = 32;

    /// One tile of `T` registers: loaded from `src`, every row added and removed in registers,
    /// stored once to `dst`, at offset `at`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn tile_avx2<const T: usize>(
        dst: &mut [i16],
        src: &[i16],
        added: &[&[i16]],
        removed: &[&[i16]],
        at: usize,
    ) {
        // SAFETY: the caller guarantees `at + T * W256 <= len` for every slice; unaligned
        // loads and stores.
        unsafe {
            let mut tile = [_mm256_setzero_si256(); T];
            for (i, register) in tile.iter_mut().enumerate() {
                *register = _mm256_loadu_si256(src.as_ptr().add(at + i * W256).cast());
            }
            for row in added {
                for (i, register) in tile.iter_mut().enumerate() {
                    let weights = _mm256_loadu_si256(row.as_ptr().add(at + i * W256).cast());
                    *register = _mm256_add_epi16(*register, weights);
                }
            }
            for row in removed {
                for (i, register) in tile.iter_mut().enumerate() {
                    let weights = _mm256_loadu_si256(row.as_ptr().add(at + i * W256).cast());
                    *register = _mm256_sub_epi16(*register, weights);
                }
            }
            for (i, register) in tile.iter().enumerate() {
                _mm256_storeu_si256(dst.as_mut_ptr().add(at + i * W256).cast(), *register);
            }
        }
    }

    /// [`super::update`] with AVX2: tiles of 8 registers (128 values: a whole 128-wide
    /// perspective stays in registers), then tiles of 2 for the rest.
    ///
    /// # Safety
    /// AVX2 must be available; all slices of `dst`'s length, a multiple of 32.
    #[target_feature(enable = "avx2")]
    pub unsafe fn update_avx2(dst: &mut [i16], src: &[i16], added: &[&[i16]], removed: &[&[i16]]) {
        let n = dst.len();
        debug_assert!(n.is_multiple_of(2 * W256));
        let mut at = 0;
        // SAFETY (both loops): each tile ends at `at + T * W256 <= n`, checked by the loop
        // conditions; the caller checked AVX2 and the lengths.
        while at + 8 * W256 <= n {
            unsafe { tile_avx2::<8>(dst, src, added, removed, at) };
            at += 8 * W256;
        }
        while at + 2 * W256 <= n {
            unsafe { tile_avx2::<2>(dst, src, added, removed, at) };
            at += 2 * W256;
        }
    }

    /// One tile of `T` 512-bit registers (see [`tile_avx2`]).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    unsafe fn tile_avx512<const T: usize>(
        dst: &mut [i16],
        src: &[i16],
        added: &[&[i16]],
        removed: &[&[i16]],
        at: usize,
    ) {
        // SAFETY: the caller guarantees `at + T * W512 <= len` for every slice; unaligned
        // loads and stores.
        unsafe {
            let mut tile = [_mm512_setzero_si512(); T];
            for (i, register) in tile.iter_mut().enumerate() {
                *register = _mm512_loadu_si512(src.as_ptr().add(at + i * W512).cast());
            }
            for row in added {
                for (i, register) in tile.iter_mut().enumerate() {
                    let weights = _mm512_loadu_si512(row.as_ptr().add(at + i * W512).cast());
                    *register = _mm512_add_epi16(*register, weights);
                }
            }
            for row in removed {
                for (i, register) in tile.iter_mut().enumerate() {
                    let weights = _mm512_loadu_si512(row.as_ptr().add(at + i * W512).cast());
                    *register = _mm512_sub_epi16(*register, weights);
                }
            }
            for (i, register) in tile.iter().enumerate() {
                _mm512_storeu_si512(dst.as_mut_ptr().add(at + i * W512).cast(), *register);
            }
        }
    }

    /// [`super::update`] with AVX-512: tiles of 8 registers (256 values), then single ones.
    ///
    /// # Safety
    /// AVX-512 F and BW must be available; all slices of `dst`'s length, a multiple of 32.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn update_avx512(
        dst: &mut [i16],
        src: &[i16],
        added: &[&[i16]],
        removed: &[&[i16]],
    ) {
        let n = dst.len();
        debug_assert!(n.is_multiple_of(W512));
        let mut at = 0;
        // SAFETY (both loops): each tile ends at `at + T * W512 <= n`, checked by the loop
        // conditions; the caller checked AVX-512 and the lengths.
        while at + 8 * W512 <= n {
            unsafe { tile_avx512::<8>(dst, src, added, removed, at) };
            at += 8 * W512;
        }
        while at + W512 <= n {
            unsafe { tile_avx512::<1>(dst, src, added, removed, at) };
            at += W512;
        }
    }

    /// [`super::dot`] with AVX2: for each 16 values `v = clamp(x, 0, qa)`, then
    /// `madd(v * w, v)` (squared: `mullo` fits, the loader checks `qa * |w| <= 32767`) or
    /// `madd(v, w)`, two products per `i32` lane per register. The lanes are widened to `i64`
    /// every [`TERMS_PER_LANE`] / 2 registers.
    ///
    /// # Safety
    /// AVX2 must be available; slices of one length, a multiple of 32.
    #[target_feature(enable = "avx2")]
    pub unsafe fn dot_avx2(
        activation: Activation,
        values: &[i16],
        weights: &[i16],
        qa: i16,
    ) -> i64 {
        const REGISTERS_PER_FLUSH: usize = TERMS_PER_LANE / 2;
        let n = values.len();
        let zero = _mm256_setzero_si256();
        let ceiling = _mm256_set1_epi16(qa);
        let mut total = _mm256_setzero_si256(); // 4 x i64
        let mut at = 0;
        while at < n {
            let end = (at + REGISTERS_PER_FLUSH * W256).min(n);
            let mut sum = _mm256_setzero_si256(); // 8 x i32
            while at < end {
                // SAFETY: `at + W256 <= n` (lengths are multiples of 16); unaligned loads.
                let (x, w) = unsafe {
                    (
                        _mm256_loadu_si256(values.as_ptr().add(at).cast()),
                        _mm256_loadu_si256(weights.as_ptr().add(at).cast()),
                    )
                };
                let v = _mm256_min_epi16(_mm256_max_epi16(x, zero), ceiling);
                let products = match activation {
                    Activation::Clipped => _mm256_madd_epi16(v, w),
                    Activation::SquaredClipped => _mm256_madd_epi16(_mm256_mullo_epi16(v, w), v),
                };
                sum = _mm256_add_epi32(sum, products);
                at += W256;
            }
            let low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(sum));
            let high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(sum));
            total = _mm256_add_epi64(total, _mm256_add_epi64(low, high));
        }
        let pair = _mm_add_epi64(
            _mm256_castsi256_si128(total),
            _mm256_extracti128_si256::<1>(total),
        );
        _mm_cvtsi128_si64(pair) + _mm_extract_epi64::<1>(pair)
    }

    /// [`super::dot`] with AVX-512 (see [`dot_avx2`]), 32 values a register.
    ///
    /// # Safety
    /// AVX-512 F and BW must be available; slices of one length, a multiple of 32.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn dot_avx512(
        activation: Activation,
        values: &[i16],
        weights: &[i16],
        qa: i16,
    ) -> i64 {
        const REGISTERS_PER_FLUSH: usize = TERMS_PER_LANE / 2;
        let n = values.len();
        let zero = _mm512_setzero_si512();
        let ceiling = _mm512_set1_epi16(qa);
        let mut total = _mm512_setzero_si512(); // 8 x i64
        let mut at = 0;
        while at < n {
            let end = (at + REGISTERS_PER_FLUSH * W512).min(n);
            let mut sum = _mm512_setzero_si512(); // 16 x i32
            while at < end {
                // SAFETY: `at + W512 <= n` (lengths are multiples of 32); unaligned loads.
                let (x, w) = unsafe {
                    (
                        _mm512_loadu_si512(values.as_ptr().add(at).cast()),
                        _mm512_loadu_si512(weights.as_ptr().add(at).cast()),
                    )
                };
                let v = _mm512_min_epi16(_mm512_max_epi16(x, zero), ceiling);
                let products = match activation {
                    Activation::Clipped => _mm512_madd_epi16(v, w),
                    Activation::SquaredClipped => _mm512_madd_epi16(_mm512_mullo_epi16(v, w), v),
                };
                sum = _mm512_add_epi32(sum, products);
                at += W512;
            }
            let low = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(sum));
            let high = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(sum));
            total = _mm512_add_epi64(total, _mm512_add_epi64(low, high));
        }
        _mm512_reduce_add_epi64(total)
    }
}
