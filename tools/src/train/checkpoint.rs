//! The files the trainer writes: each through a temporary file renamed into place, so an
//! interrupted write leaves the previous file; and the checkpoint, the float state a run
//! resumes from (`--checkpoint`, `--resume`).

use std::fs;
use std::path::Path;

use super::optimizer::Trainer;
use super::options::Failure;

/// Writes through a temporary file, so an interrupted write leaves the previous file.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    fs::write(&temporary, bytes).map_err(|error| format!("{}: {error}", path.display()))?;
    fs::rename(&temporary, path).map_err(|error| format!("{}: {error}", path.display()))?;
    Ok(())
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"FCTRAIN2";

/// The float state: magic, hidden, buckets, activation, king layout, epochs done, steps (u64
/// each), then the
/// parameters and both moments as `f32`, little-endian.
pub(crate) fn write_checkpoint(trainer: &Trainer, path: &Path) -> Result<(), Failure> {
    let shape = trainer.shape;
    let mut bytes = CHECKPOINT_MAGIC.to_vec();
    for word in [
        shape.hidden as u64,
        shape.buckets as u64,
        shape.activation as u64,
        shape.king as u64,
        trainer.epochs_done as u64,
        trainer.steps,
    ] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    for values in [
        &trainer.parameters,
        &trainer.first_moment,
        &trainer.second_moment,
    ] {
        bytes.extend(values.iter().flat_map(|value| value.to_le_bytes()));
    }
    write_file(path, &bytes)
}

/// Restores a checkpoint written for the same shape.
pub(crate) fn read_checkpoint(trainer: &mut Trainer, path: &Path) -> Result<(), Failure> {
    let bytes = fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let shape = trainer.shape;
    let count = shape.parameters();
    let header = 8 + 6 * 8;
    let word = |index: usize| {
        let start = 8 + 8 * index;
        u64::from_le_bytes(bytes[start..start + 8].try_into().expect("8 bytes"))
    };
    if bytes.len() != header + 3 * 4 * count
        || &bytes[..8] != CHECKPOINT_MAGIC
        || word(0) != shape.hidden as u64
        || word(1) != shape.buckets as u64
        || word(2) != shape.activation as u64
        || word(3) != shape.king as u64
    {
        return Err(format!(
            "{}: not a checkpoint of a network with {} hidden, {} buckets, {:?}, king layout {}",
            path.display(),
            shape.hidden,
            shape.buckets,
            shape.activation,
            shape.king.name()
        )
        .into());
    }
    trainer.epochs_done = word(4) as usize;
    trainer.steps = word(5);
    let mut floats = bytes[header..]
        .chunks_exact(4)
        .map(|word| f32::from_le_bytes(word.try_into().expect("4 bytes")));
    for values in [
        &mut trainer.parameters,
        &mut trainer.first_moment,
        &mut trainer.second_moment,
    ] {
        values
            .iter_mut()
            .zip(floats.by_ref())
            .for_each(|(value, read)| *value = read);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use ferrochess::eval::nnue::Activation;
    use ferrochess::eval::nnue::features::KingLayout;

    use super::super::shape::Shape;
    use super::super::testing::trained_looking;
    use super::*;

    #[test]
    fn a_checkpoint_restores_the_trainer() {
        let shape = Shape {
            king: KingLayout::Plain,
            hidden: 16,
            buckets: 2,
            activation: Activation::ClippedRelu,
        };
        let mut trainer = trained_looking(shape, 5);
        trainer.first_moment.fill(0.25);
        trainer.second_moment.fill(0.5);
        (trainer.steps, trainer.epochs_done) = (42, 3);
        let path =
            std::env::temp_dir().join(format!("nnue_train_test_{}.state", std::process::id()));
        write_checkpoint(&trainer, &path).unwrap();
        let mut restored = Trainer::new(shape, 9, 1);
        read_checkpoint(&mut restored, &path).unwrap();
        fs::remove_file(&path).unwrap();
        assert_eq!(restored.parameters, trainer.parameters);
        assert_eq!(restored.first_moment, trainer.first_moment);
        assert_eq!(restored.second_moment, trainer.second_moment);
        assert_eq!((restored.steps, restored.epochs_done), (42, 3));
        let other = Shape {
            hidden: 32,
            ..shape
        };
        let path =
            std::env::temp_dir().join(format!("nnue_train_test_{}.other", std::process::id()));
        write_checkpoint(&trainer, &path).unwrap();
        assert!(read_checkpoint(&mut Trainer::new(other, 9, 1), &path).is_err());
        // The same number of parameters in another king layout is another network.
        let mirrored = Shape {
            king: KingLayout::Mirrored,
            ..shape
        };
        assert!(read_checkpoint(&mut Trainer::new(mirrored, 9, 1), &path).is_err());
        fs::remove_file(&path).unwrap();
    }
}
