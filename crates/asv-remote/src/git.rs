//! The generic git transport.
