//! A skill tree as a change of the tree: what the tree-change layer is given to write.

use asv_fs::{Fill, NewFile};
use asv_skilltree::SkillTree;

/// The files of `tree` as a fill of the tree-change layer.
pub(crate) fn fill_of(tree: &SkillTree) -> Fill {
    fill_from(tree.clone())
}

/// [`fill_of`] taking the tree, so its bytes move into the fill rather than being copied: a
/// skill placed once is held once.
pub(crate) fn fill_from(tree: SkillTree) -> Fill {
    Fill::files(
        tree.into_files()
            .into_iter()
            .map(|f| {
                let file = NewFile::new(f.path, f.data);
                if f.executable {
                    file.executable()
                } else {
                    file
                }
            })
            .collect(),
    )
}
