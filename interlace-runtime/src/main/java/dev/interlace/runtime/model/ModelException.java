package dev.interlace.runtime.model;

/** A model cannot be loaded or its graph is invalid (unknown table, cycle, name clash); start-up stops with it. */
public final class ModelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ModelException(String message) {
        super(message);
    }
}
