//! What the network code guarantees: the incremental accumulators equal a refresh from scratch
//! along random games (moves made, taken back and replaced, null moves), the integer inference
//! equals a floating-point reference within the rounding it makes, every instruction set the
//! processor has gives exactly the portable code's accumulators and outputs, and a file that is
//! not a usable network is refused with a reason.

use shakmaty::{Chess, Color, Position as _};

use super::features::{self, KingLayout};
use super::network::{Activation, Architecture, Network};
use super::simd::{self, Isa};
use super::{Accumulators, default_network};
use crate::position::{Position, START_FEN};
use crate::random::Random;

/// A weight uniform in `-limit..=limit`.
fn weight(random: &mut Random, limit: i16) -> i16 {
    (random.index(2 * limit as usize + 1) as i32 - i32::from(limit)) as i16
}

/// A network with random weights in the ranges a trainer writes, in the plain king layout.
fn random_network(hidden: usize, buckets: usize, activation: Activation, seed: u64) -> Network {
    random_network_in(KingLayout::Plain, hidden, buckets, activation, seed)
}

/// A network with random weights in the ranges a trainer writes.
fn random_network_in(
    king: KingLayout,
    hidden: usize,
    buckets: usize,
    activation: Activation,
    seed: u64,
) -> Network {
    let mut random = Random::seeded(seed);
    let architecture = Architecture {
        king,
        hidden,
        buckets,
        activation,
        qa: 255,
        qb: 64,
        scale: 400,
    };
    Network::from_parts(
        architecture,
        (0..king.inputs() * hidden)
            .map(|_| weight(&mut random, 400))
            .collect(),
        (0..hidden).map(|_| weight(&mut random, 200)).collect(),
        (0..buckets * 2 * hidden)
            .map(|_| weight(&mut random, 127))
            .collect(),
        (0..buckets)
            .map(|_| i32::from(weight(&mut random, 5000)))
            .collect(),
    )
    .expect("weights within the checked ranges")
}

#[test]
fn incremental_accumulators_equal_a_refresh_along_random_games() {
    for (seed, network) in [
        (1, random_network(32, 8, Activation::SquaredClippedRelu, 11)),
        (2, random_network(64, 1, Activation::ClippedRelu, 12)),
        (
            3,
            random_network_in(
                KingLayout::Mirrored,
                32,
                8,
                Activation::SquaredClippedRelu,
                13,
            ),
        ),
        (
            4,
            random_network_in(
                KingLayout::Mirrored4,
                32,
                8,
                Activation::SquaredClippedRelu,
                14,
            ),
        ),
    ] {
        let mut random = Random::seeded(seed);
        let mut checked = 0;
        for _game in 0..20 {
            let mut position = Position::from_fen(START_FEN).unwrap();
            let mut accumulators = Accumulators::new(&network);
            for _ply in 0..120 {
                let moves = position.board().legal_moves();
                if moves.is_empty() || position.ply() >= crate::score::MAX_PLY - 1 {
                    break;
                }
                // Try a move or two and take them back first, as a search does, leaving stale
                // entries above the current ply.
                for _ in 0..random.index(3) {
                    let tried = moves[random.index(moves.len())];
                    position.push(tried);
                    assert_eq!(
                        accumulators.evaluate(&network, &position),
                        network.evaluate(position.board())
                    );
                    position.pop();
                }
                // Sometimes a null move (never in check), evaluated and taken back.
                if !position.board().is_check() && random.index(4) == 0 {
                    position.push_null();
                    assert_eq!(
                        accumulators.evaluate(&network, &position),
                        network.evaluate(position.board())
                    );
                    position.pop();
                }
                let played = moves[random.index(moves.len())];
                position.push(played);
                // Evaluate only some plies, so updates also skip plies.
                if random.index(2) == 0 {
                    assert_eq!(
                        accumulators.evaluate(&network, &position),
                        network.evaluate(position.board()),
                        "{}",
                        position.fen()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "only {checked} positions checked");
    }
}

/// The network's output computed in `f64` from its weights divided back by their scales.
fn float_reference(network: &Network, board: &Chess) -> f64 {
    let a = network.architecture();
    let (qa, qb) = (f64::from(a.qa), f64::from(a.qb));
    let hidden_layer = |perspective: Color| -> Vec<f64> {
        let mut values: Vec<f64> = network
            .feature_bias
            .iter()
            .map(|&bias| f64::from(bias) / qa)
            .collect();
        for input in features::active(board.board(), a.king, perspective) {
            for (neuron, value) in values.iter_mut().enumerate() {
                *value += f64::from(network.feature_weights[input * a.hidden + neuron]) / qa;
            }
        }
        values
            .into_iter()
            .map(|value| {
                let clipped = value.clamp(0.0, 1.0);
                match a.activation {
                    Activation::ClippedRelu => clipped,
                    Activation::SquaredClippedRelu => clipped * clipped,
                }
            })
            .collect()
    };
    let us = hidden_layer(board.turn());
    let them = hidden_layer(!board.turn());
    let bucket = a.bucket(board.board().occupied().count());
    let (weights, bias) = network.output_layer(bucket);
    let mut output = f64::from(bias) / (qa * qb);
    for (value, &weight) in us.iter().chain(&them).zip(weights) {
        output += value * f64::from(weight) / qb;
    }
    output * f64::from(a.scale)
}

#[test]
fn integer_inference_equals_the_float_reference_within_rounding() {
    // The integer path truncates twice (the squared activation divided by QA, the output
    // divided by QA x QB), each losing less than one unit of its scale: under 2 centipawns in all.
    const TOLERANCE_CP: f64 = 2.0;
    let fens = [
        START_FEN,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/3QK3 b - - 0 1",
    ];
    for network in [
        default_network().as_ref().clone(),
        random_network(32, 8, Activation::SquaredClippedRelu, 3),
        random_network(64, 2, Activation::ClippedRelu, 4),
        random_network_in(
            KingLayout::Mirrored4,
            32,
            8,
            Activation::SquaredClippedRelu,
            6,
        ),
    ] {
        for fen in fens {
            let board = crate::position::parse_fen(fen).unwrap();
            let integer = f64::from(network.evaluate(&board));
            let reference = float_reference(&network, &board);
            assert!(
                (integer - reference).abs() < TOLERANCE_CP,
                "{fen}: integer {integer}, float {reference}"
            );
        }
    }
}

#[test]
fn files_that_are_not_usable_networks_are_refused_with_a_reason() {
    let bytes = random_network(32, 1, Activation::SquaredClippedRelu, 5).to_bytes();
    let refused = |bytes: &[u8]| Network::from_bytes(bytes).unwrap_err();
    assert!(refused(&bytes[..bytes.len() - 10]).contains("truncated"));
    assert!(refused(&bytes[..20]).contains("header"));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(refused(&longer).contains("expected"));
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 100;
    corrupt[last] ^= 1;
    assert!(refused(&corrupt).contains("corrupt"));
    let mut version = bytes.clone();
    version[4] = 9;
    assert!(refused(&version).contains("version 9"));
    let mut layout = bytes.clone();
    layout[36] = 7;
    assert!(refused(&layout).contains("unknown king layout 7"));
    // A layout with more inputs than the header's count.
    let mut layout = bytes.clone();
    layout[36] = KingLayout::Mirrored4 as u8;
    assert!(refused(&layout).contains("768 inputs, expected 3072"));
    // Format version 1 had no layout: the word was reserved, and must be 0.
    let mut first = bytes.clone();
    first[4] = 1;
    assert!(Network::from_bytes(&first).is_ok());
    first[36] = 1;
    assert!(refused(&first).contains("reserved"));
    assert!(
        refused(b"PK\x03\x04 something else entirely, long enough for a header....")
            .contains("FCNN")
    );

    let directory = std::env::temp_dir().join(format!("ferrochess-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("short.nnue");
    std::fs::write(&path, &bytes[..1000]).unwrap();
    let message = Network::load(&path).unwrap_err().to_string();
    assert!(
        message.contains("short.nnue") && message.contains("truncated"),
        "{message}"
    );
    let missing = directory.join("missing.nnue");
    let message = Network::load(&missing).unwrap_err().to_string();
    assert!(message.contains("missing.nnue"), "{message}");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_mirrored_network_evaluates_a_position_and_its_mirror_image_alike() {
    let network = random_network_in(
        KingLayout::Mirrored4,
        32,
        8,
        Activation::SquaredClippedRelu,
        7,
    );
    let pairs = [
        (
            "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 b - - 0 6",
            "1kr1qb1r/ppp1pppp/2n2n2/3p1b2/3P1B2/2N1PN2/PPP2PPP/1KR1QB1R b - - 0 6",
        ),
        (
            "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 40",
            "8/1kp5/1p6/8/4R3/1P6/1KP5/7r w - - 0 40",
        ),
    ];
    for (fen, mirrored) in pairs {
        let a = crate::position::parse_fen(fen).unwrap();
        let b = crate::position::parse_fen(mirrored).unwrap();
        assert_eq!(network.evaluate(&a), network.evaluate(&b), "{fen}");
    }
    // The plain layout tells them apart.
    let plain = random_network(32, 8, Activation::SquaredClippedRelu, 7);
    let (a, b) = (
        crate::position::parse_fen(pairs[0].0).unwrap(),
        crate::position::parse_fen(pairs[0].1).unwrap(),
    );
    assert_ne!(plain.evaluate(&a), plain.evaluate(&b));
}

#[test]
fn the_compiled_in_network_is_the_one_recorded() {
    let network = default_network();
    assert_eq!(network.name(), super::DEFAULT_NETWORK_NAME);
    assert_eq!(
        Network::from_bytes(&network.to_bytes()).unwrap().hash(),
        network.hash()
    );
}

/// A random `i16` from the whole range.
fn any_i16(random: &mut Random) -> i16 {
    random.next_u64() as i16
}

#[test]
fn every_instruction_sets_update_equals_the_portable_one() {
    let mut random = Random::seeded(21);
    let isas = Isa::available();
    // Lengths that use each tile size (AVX2: 128 and 32 values; AVX-512: 256 and 32).
    for n in [32, 64, 96, 128, 160, 256, 288, 1024] {
        // Quiet moves, captures, castling and their kin, and refreshes of up to 32 rows.
        for (adds, subs) in [
            (0, 0),
            (1, 1),
            (1, 2),
            (2, 2),
            (2, 1),
            (0, 1),
            (3, 4),
            (32, 0),
        ] {
            let rows: Vec<Vec<i16>> = (0..adds + subs)
                .map(|_| (0..n).map(|_| any_i16(&mut random)).collect())
                .collect();
            let (added, removed) = rows.split_at(adds);
            let added: Vec<&[i16]> = added.iter().map(Vec::as_slice).collect();
            let removed: Vec<&[i16]> = removed.iter().map(Vec::as_slice).collect();
            let src: Vec<i16> = (0..n).map(|_| any_i16(&mut random)).collect();
            let mut expected = vec![0; n];
            simd::update_portable(&mut expected, &src, &added, &removed);
            for &isa in &isas {
                let mut dst = vec![7; n];
                simd::update(isa, &mut dst, &src, &added, &removed);
                assert_eq!(dst, expected, "{isa:?}, {n} values, +{adds} -{subs}");
            }
        }
    }
}

#[test]
fn every_instruction_sets_dot_product_equals_the_portable_one() {
    let mut random = Random::seeded(22);
    let isas = Isa::available();
    for qa in [255i16, 181, 1024] {
        // The squared activation needs qa * |w| <= 32767 (the loader's check).
        let squared_limit = i16::MAX / qa;
        for n in [32, 128, 160, 256, 288, 1024] {
            for round in 0..20 {
                let values: Vec<i16> = match round {
                    // Every value at the ceiling and every weight at its bound: the largest sums,
                    // which the i32 lanes must hold (simd::TERMS_PER_LANE).
                    0 | 1 => vec![qa; n],
                    2 => (0..n).map(|_| any_i16(&mut random)).collect(),
                    _ => (0..n)
                        .map(|_| random.index(2 * qa as usize + 200) as i16 - 100)
                        .collect(),
                };
                for (activation, limit) in [
                    (simd::Activation::SquaredClipped, squared_limit),
                    (simd::Activation::Clipped, i16::MAX),
                ] {
                    let weights: Vec<i16> = match round {
                        0 => vec![limit; n],
                        1 => vec![-limit; n],
                        _ => (0..n).map(|_| weight(&mut random, limit)).collect(),
                    };
                    let expected = simd::dot_portable(activation, &values, &weights, qa);
                    if round == 0 {
                        let term = i64::from(qa) * i64::from(limit);
                        let term = match activation {
                            simd::Activation::SquaredClipped => term * i64::from(qa),
                            simd::Activation::Clipped => term,
                        };
                        assert_eq!(expected, n as i64 * term);
                    }
                    for &isa in &isas {
                        assert_eq!(
                            simd::dot(isa, activation, &values, &weights, qa),
                            expected,
                            "{isa:?}, {activation:?}, qa {qa}, {n} values, round {round}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_instruction_set_keeps_the_portable_accumulators_along_random_games() {
    let isas = Isa::available();
    // Print what was tested, so that a run on a machine without AVX-512 says so.
    println!("instruction sets tested: {isas:?}");
    for (seed, network) in [
        (31, default_network().as_ref().clone()),
        (
            32,
            random_network(288, 8, Activation::SquaredClippedRelu, 41),
        ),
        (33, random_network(160, 2, Activation::ClippedRelu, 42)),
        (
            34,
            random_network_in(
                KingLayout::Mirrored4,
                32,
                8,
                Activation::SquaredClippedRelu,
                43,
            ),
        ),
    ] {
        let portable = network.clone().with_isa(Isa::Portable);
        for &isa in &isas {
            let simd = network.clone().with_isa(isa);
            let mut random = Random::seeded(seed);
            let mut reference = Accumulators::new(&portable);
            let mut accumulators = Accumulators::new(&simd);
            let mut checked = 0;
            for _game in 0..6 {
                let mut position = Position::from_fen(START_FEN).unwrap();
                for _ply in 0..100 {
                    let moves = position.board().legal_moves();
                    if moves.is_empty() || position.ply() >= crate::score::MAX_PLY - 1 {
                        break;
                    }
                    position.push(moves[random.index(moves.len())]);
                    if random.index(3) == 0 {
                        continue;
                    }
                    let value = accumulators.evaluate(&simd, &position);
                    assert_eq!(value, reference.evaluate(&portable, &position), "{isa:?}");
                    assert_eq!(value, portable.evaluate(position.board()), "{isa:?}");
                    let ply = position.ply();
                    for color in [Color::White, Color::Black] {
                        assert_eq!(
                            accumulators.entry(ply, color),
                            reference.entry(ply, color),
                            "{isa:?}: {}",
                            position.fen()
                        );
                    }
                    checked += 1;
                }
            }
            assert!(checked > 200, "only {checked} positions checked");
        }
    }
}

#[test]
fn the_network_uses_the_widest_instruction_set_the_processor_has() {
    let isa = default_network().isa();
    assert_eq!(isa, Isa::detect());
    assert_eq!(Some(&isa), Isa::available().last());
}
