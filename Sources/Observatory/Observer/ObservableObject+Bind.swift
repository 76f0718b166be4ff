// Binding observed values to properties of other objects.

extension Var {
    /// Keeps a property of an object equal to this variable's value: sets it
    /// now, and again after every update.
    ///
    /// ```swift
    /// viewModel.title.bind(to: \.text, on: label)
    /// ```
    ///
    /// The binding holds the object weakly and ends when the object or the
    /// variable dies.
    ///
    /// - Returns: The observer doing the binding; stop it to end the binding
    ///   early. Ignoring it is fine.
    @discardableResult
    public func bind<Root: AnyObject>(
        to keyPath: ReferenceWritableKeyPath<Root, Value>,
        on object: Root
    ) -> FreeObserver {
        object[keyPath: keyPath] = value
        return bind(to: keyPath, on: object) { $0.new }
    }

    /// Keeps an optional property of an object equal to this variable's
    /// value, as LightweightObservable allows: a `Var<Int>` drives an `Int?`.
    ///
    /// ```swift
    /// count.bind(to: \.badge, on: tab)     // badge: Int?
    /// ```
    ///
    /// Sets the property now and after every update; the binding holds the
    /// object weakly and ends when the object or the variable dies.
    ///
    /// - Returns: The observer doing the binding; stop it to end the binding
    ///   early. Ignoring it is fine.
    @discardableResult
    public func bind<Root: AnyObject>(
        to keyPath: ReferenceWritableKeyPath<Root, Value?>,
        on object: Root
    ) -> FreeObserver {
        object[keyPath: keyPath] = value
        return bind(to: keyPath, on: object) { $0.new }
    }
}

extension ObservableObject {
    /// Sets a property of an object to every message this object sends.
    ///
    /// The binding holds the object weakly and ends when the object or this
    /// observable dies.
    ///
    /// - Returns: The observer doing the binding; stop it to end the binding
    ///   early. Ignoring it is fine.
    @discardableResult
    public func bind<Root: AnyObject>(
        to keyPath: ReferenceWritableKeyPath<Root, Message>,
        on object: Root
    ) -> FreeObserver {
        bind(to: keyPath, on: object) { $0 }
    }

    /// Sets an optional property of an object to every message this object
    /// sends, as LightweightObservable allows: a `Messenger<Int>` drives an
    /// `Int?`.
    ///
    /// The binding holds the object weakly and ends when the object or this
    /// observable dies.
    ///
    /// - Returns: The observer doing the binding; stop it to end the binding
    ///   early. Ignoring it is fine.
    @discardableResult
    public func bind<Root: AnyObject>(
        to keyPath: ReferenceWritableKeyPath<Root, Message?>,
        on object: Root
    ) -> FreeObserver {
        bind(to: keyPath, on: object) { $0 }
    }

    /// Sets a property of an object to the value `valueOf` extracts from
    /// every message.
    func bind<Root: AnyObject, Value>(
        to keyPath: ReferenceWritableKeyPath<Root, Value>,
        on object: Root,
        valueOf: @escaping (Message) -> Value
    ) -> FreeObserver {
        let observer = FreeObserver()
        // The handler keeps its observer alive, and lets it go once the bound
        // object is gone.
        observer.observe(self) { [observer, weak object] message in
            guard let object else {
                observer.stopObserving()
                return
            }
            object[keyPath: keyPath] = valueOf(message)
        }
        return observer
    }
}
