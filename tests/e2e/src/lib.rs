//! End-to-end tests across the services, through HTTP only.
